from inmanta.plugins import plugin


@plugin
def first(items: "string[]") -> "string":
    return items[0]
