from inmanta.plugins import plugin


@plugin
def lineage(x: "std::Entity") -> "string":
    return ",".join(sorted(x._type().get_all_parent_names()))
