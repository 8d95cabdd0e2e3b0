from inmanta.plugins import plugin


@plugin
def add(a: "int", b) -> "int":
    return a + b
