from inmanta.plugins import plugin


@plugin
def names(items: "list") -> "string":
    return ",".join(sorted(i.name for i in items))


@plugin
def biggest(items: "fleet::Node[]") -> "fleet::Node":
    return max(items, key=lambda n: n.size)


@plugin
def by_name(items: "fleet::Node[]") -> "dict":
    return {n.name: n for n in items}


@plugin
def sizes(table: "dict") -> "string":
    return ",".join(f"{k}={table[k].size}" for k in sorted(table))


@plugin
def small(items: "fleet::Node[]", limit: "int") -> "fleet::Node[]":
    return [n for n in items if n.size < limit]
