from inmanta.plugins import plugin


@plugin
def some_name() -> "string":
    return "x"
