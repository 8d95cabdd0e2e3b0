from inmanta.plugins import plugin


@plugin
def double(n: int) -> int:
    return 2 * n
