import ipaddress

from inmanta.plugins import plugin


@plugin
def is_ip(value: "string") -> "bool":
    try:
        ipaddress.IPv4Address(value)
        return True
    except ValueError:
        return False


@plugin
def is_port_list(value: "string") -> "bool":
    return all(part.isdigit() and 0 < int(part) < 65536 for part in value.split(","))
