import logging

from inmanta.plugins import plugin

LOGGER = logging.getLogger(__name__)


@plugin
def describe(name: "string", count: "int", ratio: "float", enabled: "bool", note: "string?") -> "string":
    LOGGER.info("describe called for %s", name)
    return f"{name} count={count} ratio={ratio} enabled={enabled} note={note}"


@plugin
def types_of(a: "any", b: "any", c: "any", d: "any", e: "any") -> "string":
    return " ".join(type(x).__name__ for x in (a, b, c, d, e))


@plugin
def number_kind(n: "number") -> "string":
    return type(n).__name__
