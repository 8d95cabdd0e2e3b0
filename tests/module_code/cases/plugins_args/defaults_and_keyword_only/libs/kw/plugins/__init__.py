from inmanta.plugins import plugin


@plugin
def greet(name: "string", greeting: "string" = "hello", *, punct: "string" = "!", shout: "bool" = False) -> "string":
    text = f"{greeting} {name}{punct}"
    return text.upper() if shout else text


@plugin
def tag(value: "string", *, key: "string") -> "string":
    return f"{key}={value}"


@plugin
def defaults_seen(a: "int" = 1, b: "list" = ["x"], c: "string?" = None) -> "string":
    return f"{a} {list(b)} {c}"
