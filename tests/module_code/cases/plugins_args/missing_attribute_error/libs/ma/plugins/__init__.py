from inmanta.plugins import plugin


@plugin
def name_of(thing: "ma::Thing") -> "string":
    return thing.name


@plugin
def colour_of(thing: "ma::Thing") -> "string":
    return thing.colour
