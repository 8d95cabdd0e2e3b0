from inmanta_plugins.textutil import slug

from inmanta.plugins import plugin


@plugin
def page_url(title: "string") -> "string":
    return "/pages/" + slug(title)
