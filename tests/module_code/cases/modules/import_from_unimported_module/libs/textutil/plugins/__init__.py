import re

from inmanta.plugins import plugin


def slug(text):
    """A helper other modules import (not a plugin)."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


@plugin
def slugify(text: "string") -> "string":
    return slug(text)
