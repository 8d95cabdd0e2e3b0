from inmanta.plugins import plugin


@plugin
def count(text: "string") -> "int":
    if text == "":
        return "zero"
    return len(text)
