from inmanta.plugins import plugin


@plugin
def join(sep: "string", *parts: "string") -> "string":
    return sep.join(parts)


@plugin
def describe(kind: "string", **attrs: "any") -> "string":
    return kind + "(" + ", ".join(f"{k}={attrs[k]}" for k in sorted(attrs)) + ")"


@plugin
def count_all(*items: "any", **named: "int") -> "int":
    return len(items) + sum(named.values())
