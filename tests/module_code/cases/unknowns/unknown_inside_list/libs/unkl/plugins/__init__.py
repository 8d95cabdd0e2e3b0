from inmanta.ast import UnknownException
from inmanta.plugins import plugin


@plugin
def known_count(items: "list") -> "int":
    count = 0
    iterator = iter(items)
    while True:
        try:
            next(iterator)
            count += 1
        except UnknownException:
            continue
        except StopIteration:
            return count


@plugin
def joined(items: "list") -> "string":
    return ",".join(items)
