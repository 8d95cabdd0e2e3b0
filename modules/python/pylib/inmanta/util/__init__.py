"""Small helpers of inmanta-core that module code uses."""

import hashlib
import itertools
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")
S = TypeVar("S")


def hash_file(content: bytes) -> str:
    """The SHA-1 hex digest under which file content is uploaded to the server."""
    return hashlib.sha1(content).hexdigest()


class JSONSerializable(ABC):
    """An object that turns itself into JSON-compatible data when serialized."""

    @abstractmethod
    def json_serialization_step(self) -> object:
        raise NotImplementedError()


def groupby(mylist: Iterable[T], f: Callable[[T], S]) -> Iterator[tuple[S, Iterator[T]]]:
    return itertools.groupby(sorted(mylist, key=f), f)  # type: ignore[type-var]


def ensure_directory_exist(directory: str, *subdirs: str) -> str:
    import os

    path = os.path.join(directory, *subdirs)
    os.makedirs(path, exist_ok=True)
    return path


def get_compiler_version() -> str:
    from inmanta import __version__

    return __version__


def run_coroutine(awaitable: object, timeout: float = 5) -> object:
    """Run a coroutine to completion from synchronous code (``Context.run_sync``)."""
    import asyncio

    async def bounded() -> object:
        return await asyncio.wait_for(awaitable, timeout)  # type: ignore[arg-type]

    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(bounded())
    except asyncio.TimeoutError:
        raise ConnectionRefusedError()
    finally:
        loop.close()


def wait_sync(awaitable: object, timeout: float = 120) -> object:
    return run_coroutine(awaitable, timeout)
