from inmanta.execute.util import Unknown
from inmanta.plugins import plugin


@plugin
def shout(value: "string") -> "string":
    return value.upper()


@plugin(allow_unknown=True)
def describe(value: "any") -> "string":
    return "unknown" if isinstance(value, Unknown) else f"known {value}"


@plugin
def make_unknown() -> "string":
    return Unknown(source=None)
