import typing
from typing import Any, Optional, Union

from inmanta.plugins import plugin


@plugin
def summary(
    name: str,
    port: int,
    ratio: float,
    on: bool,
    tags: list[str],
    limits: dict[str, int],
    note: Optional[str],
    alias: str | None,
    extra: Any,
) -> str:
    return f"{name}:{port}:{ratio}:{on}:{','.join(tags)}:{sorted(limits.items())}:{note}:{alias}:{extra}"


@plugin
def squares(n: int) -> list[int]:
    return [i * i for i in range(n)]


@plugin
def either(value: Union[int, str]) -> typing.Optional[str]:
    return None if value == 0 else str(value)


@plugin
def nothing(x: int) -> None:
    return None
