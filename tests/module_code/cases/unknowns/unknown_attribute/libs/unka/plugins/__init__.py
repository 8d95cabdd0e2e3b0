from inmanta.ast import UnknownException
from inmanta.plugins import plugin


@plugin
def host_ip(box: "unka::Box") -> "string":
    return box.ip


@plugin
def host_ip_or(box: "unka::Box", fallback: "string") -> "string":
    try:
        return box.ip
    except UnknownException:
        return fallback


@plugin
def name_of(box: "unka::Box") -> "string":
    return box.name
