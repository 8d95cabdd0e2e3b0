from inmanta.ast import RuntimeException
from inmanta.plugins import plugin


@plugin
def validate(value: "string") -> "string":
    if value == "":
        raise RuntimeException(None, "an empty value is not allowed")
    return value
