"""
Access to ``_inmanta_native``, the module the C++ side builds before anything is imported.

Outside inmanta-cpp (a linter importing the package, a unit test) it is absent: ``native`` is then
None and anything that reads the model fails with a clear error instead of at import time.
"""

import sys
from typing import Any, Optional

native: Optional[Any]
try:
    import _inmanta_native as native  # type: ignore[import-not-found, no-redef]
except ImportError:  # pragma: no cover - only outside the compiler
    native = None


def refresh() -> None:
    """Pick up ``_inmanta_native`` when it was registered after this module was imported."""
    global native
    if native is None:
        native = sys.modules.get("_inmanta_native")


def get() -> Any:
    """The native module; raises when this package runs outside inmanta-cpp."""
    mod = native if native is not None else sys.modules.get("_inmanta_native")
    if mod is None:
        raise RuntimeError("inmanta: this operation needs the inmanta-cpp compiler (_inmanta_native is not loaded)")
    return mod


# The exception class the compiler raises for a name that does not exist (set by inmanta._host).
not_found_class: type = LookupError


def is_handle(value: object) -> bool:
    """True for an opaque model value (an instance, list or dict of the model)."""
    mod = native
    return mod is not None and isinstance(value, mod.Value)


def is_unknown(value: object) -> bool:
    mod = native
    return mod is not None and value is mod.UNKNOWN


def parents(entity: str) -> list[str]:
    """The direct parents of an entity; [] when the compiler does not answer this question."""
    function = getattr(get(), "parents", None)
    return [] if function is None else list(function(entity))


def entity_exists(entity: str) -> bool:
    """Whether the model has an entity of that name (True when the compiler can not tell)."""
    function = getattr(get(), "parents", None)
    if function is None:
        return True
    try:
        function(entity)
    except not_found_class:
        return False
    return True


def attributes(entity: str) -> list[tuple]:
    """An entity's own attributes: (name, type, is_relation, low, high, other_end); [] when the
    compiler does not answer this question."""
    function = getattr(get(), "attributes", None)
    return [] if function is None else [tuple(a) for a in function(entity)]


def entities() -> list[str]:
    """The full names of every entity of the model; [] when the compiler does not answer."""
    function = getattr(get(), "entities", None)
    return [] if function is None else list(function())
