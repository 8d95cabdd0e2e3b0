"""The few helpers of ``inmanta.data`` that module code uses outside the server."""

from typing import Union


def convert_boolean(value: Union[bool, str]) -> bool:
    """A boolean from a bool or a string such as ``"true"``, ``"no"``, ``"1"``."""
    if isinstance(value, bool):
        return value
    lowered = value.lower()
    if lowered in ("true", "yes", "on", "1"):
        return True
    if lowered in ("false", "no", "off", "0"):
        return False
    raise ValueError("Not a boolean: %s" % value)


def convert_int(value: Union[int, float, str]) -> Union[int, float]:
    if isinstance(value, (int, float)):
        return value
    as_float = float(value)
    as_int = int(as_float)
    return as_int if as_int == as_float else as_float
