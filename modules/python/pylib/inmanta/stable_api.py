"""The ``@stable_api`` marker of inmanta-core: documentation only, it changes nothing."""

from typing import TypeVar

T = TypeVar("T")


def stable_api(item: T) -> T:
    return item
