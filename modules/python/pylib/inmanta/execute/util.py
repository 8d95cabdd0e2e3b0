"""Special values of the model: an unknown value and the model's ``null``."""

from collections.abc import Iterator

from inmanta.stable_api import stable_api


class AnyType:
    """Supertype of values that belong to every type."""


@stable_api
class Unknown(AnyType):
    """
    A value that can not be known during this compile (a fact the server does not have yet, ...).

    :param source: what could determine the value, when known
    """

    def __init__(self, source: object) -> None:
        self.source = source

    def __iter__(self) -> Iterator[object]:
        return iter(())


class NoneValue:
    """The model's ``null`` inside the compiler; plugins see plain ``None`` instead."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, NoneValue)

    def __hash__(self) -> int:
        return hash(None)

    def __str__(self) -> str:
        return "null"

    def __repr__(self) -> str:
        return "null"
