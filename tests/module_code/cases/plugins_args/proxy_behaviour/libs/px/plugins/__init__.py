from inmanta.plugins import plugin


@plugin
def list_ops(items: "string[]") -> "string":
    return " ".join(
        [
            str(len(items)),
            items[0],
            items[-1],
            str(len(items[1:])),
            str("b" in items),
            str("z" in items),
            str(list(reversed(items))),
            str(items),
            str(items == ["a", "b", "c"]),
        ]
    )


@plugin
def dict_ops(d: "dict") -> "string":
    return " ".join(
        [
            str(len(d)),
            str(sorted(d.keys())),
            str("x" in d),
            str("nope" in d),
            str(d.get("nope", "dflt")),
            str(d["x"]),
            str(sorted(d.items())),
            str(d),
        ]
    )


@plugin
def same(a: "std::Entity", b: "std::Entity") -> "string":
    return f"{a == b} {len({a, b})} {hasattr(a, 'name')} {hasattr(a, 'nope')}"
