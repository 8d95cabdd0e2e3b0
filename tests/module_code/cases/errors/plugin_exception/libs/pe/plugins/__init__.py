from inmanta.plugins import PluginException, plugin


@plugin
def check_size(size: "int") -> "string":
    if size < 10:
        raise PluginException(f"disk of {size} GB is too small, at least 10 GB is needed")
    return "ok"
