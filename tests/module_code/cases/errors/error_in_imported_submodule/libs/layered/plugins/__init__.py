from inmanta.plugins import plugin

from . import helpers


@plugin
def value() -> "int":
    return helpers.VALUE
