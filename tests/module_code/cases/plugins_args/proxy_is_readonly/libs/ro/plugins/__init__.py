from inmanta.plugins import plugin


@plugin
def rename(thing: "ro::Thing") -> "string":
    thing.name = "b"
    return "renamed"
