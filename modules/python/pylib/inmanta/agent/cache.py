"""The cache behind ``@cache`` on handler methods (in memory, per handler)."""

import time
from collections.abc import Callable
from typing import Any, Optional


class AgentCache:
    def __init__(self, agent: object = None) -> None:
        self._entries: dict[tuple[object, ...], tuple[Any, float]] = {}

    @staticmethod
    def _key(key: str, ignore: set[str], kwargs: dict[str, Any]) -> tuple[object, ...]:
        parts: list[object] = [key]
        for name in sorted(kwargs):
            if name in ignore:
                continue
            value = kwargs[name]
            if name == "resource" and hasattr(value, "id"):
                value = value.id.resource_str()
            parts.append((name, repr(value)))
        return tuple(parts)

    def get_or_else(
        self,
        key: str,
        function: Callable[..., Any],
        for_version: Optional[bool] = None,
        timeout: float = 0,
        ignore: set[str] = set(),
        cache_none: bool = True,
        call_on_delete: Optional[Callable[[Any], None]] = None,
        **kwargs: Any,
    ) -> Any:
        full_key = self._key(key, ignore, kwargs)
        now = time.monotonic()
        entry = self._entries.get(full_key)
        if entry is not None and (entry[1] == 0 or entry[1] > now):
            return entry[0]
        value = function(**kwargs)
        if value is not None or cache_none:
            self._entries[full_key] = (value, now + timeout if timeout else 0)
        return value

    def close(self) -> None:
        self._entries.clear()
