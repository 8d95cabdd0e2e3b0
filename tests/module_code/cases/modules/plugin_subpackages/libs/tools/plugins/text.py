from inmanta.plugins import plugin

from .util import strings


@plugin
def shout(value: "string") -> "string":
    return strings.exclaim(value.upper())


@plugin
def banner() -> "string":
    return strings.frame("tools")
