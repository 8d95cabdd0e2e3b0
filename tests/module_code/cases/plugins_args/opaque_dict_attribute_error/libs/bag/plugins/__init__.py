from inmanta.plugins import plugin


@plugin
def tags():
    return {"a", "b"}
