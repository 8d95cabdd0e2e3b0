from inmanta.plugins import plugin


@plugin
def broken(x: "int" -> "int":
    return x
