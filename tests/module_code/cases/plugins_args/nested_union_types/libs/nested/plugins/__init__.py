from typing import Optional

from inmanta.plugins import plugin


@plugin
def join(items: list[int | str]) -> str:
    return ",".join(str(i) for i in items)


@plugin
def count(values: dict[str, Optional[int]]) -> int:
    return sum(1 for v in values.values() if v is not None)
