from inmanta_plugins.std import get_file_content

from inmanta.plugins import Context, plugin


@plugin
def read(path: "string", ctx: Context) -> "string":
    return get_file_content(ctx, "files", path).strip()


@plugin
def first_line(ctx: Context, path: "string") -> "string":
    return get_file_content(ctx, "files", path).splitlines()[0]
