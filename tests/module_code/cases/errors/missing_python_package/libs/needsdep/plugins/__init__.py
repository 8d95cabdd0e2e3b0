from inmanta.plugins import plugin

import inmanta_surely_missing_package


@plugin
def version() -> "string":
    return inmanta_surely_missing_package.__version__
