from inmanta.plugins import plugin


@plugin
def nothing() -> None:
    return None


@plugin
def nothing_any():
    return None


@plugin
def yes() -> "bool":
    return True


@plugin
def answer() -> "int":
    return 42


@plugin
def half() -> "float":
    return 0.5


@plugin
def whole() -> "float":
    return 3.0


@plugin
def word() -> "string":
    return "hello"


@plugin
def numbers() -> "int[]":
    return [1, 2, 3]


@plugin
def mixed() -> "list":
    return ["a", 1, None, True, 1.5]


@plugin
def mapping() -> "dict":
    return {"b": 2, "a": [1, None], "c": {"d": "e"}}
