from inmanta.plugins import Context, plugin


@plugin
def label(prefix: "string", ctx: Context, suffix: "string" = "") -> "string":
    return f"{prefix}|{ctx.get_environment_id()}|{ctx.plugin.namespace}|{suffix}"


@plugin
def owner_ns(context: Context) -> "string":
    return str(context.owner.namespace)
