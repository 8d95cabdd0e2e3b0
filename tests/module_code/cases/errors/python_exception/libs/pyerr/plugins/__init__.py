from inmanta.plugins import plugin


@plugin
def parse(text: "string") -> "int":
    return int(text)
