from inmanta.plugins import deprecated, plugin


@plugin("print_twice")
def internal_name(value: "string") -> "string":
    return value + value


@deprecated(replaced_by="names::modern")
@plugin
def legacy(value: "string") -> "string":
    return "legacy " + value


@deprecated
@plugin
def old(value: "string") -> "string":
    return "old " + value


@plugin
def modern(value: "string") -> "string":
    return "modern " + value
