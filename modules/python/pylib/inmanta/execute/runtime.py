"""
Names of the reference's runtime classes, for code that mentions them in annotations or ``isinstance``
checks. The model's values live in the C++ compiler: plugins see them through ``inmanta.execute.proxy``.
"""


from typing import Any

from inmanta import _native


class ResultVariable:
    """A slot of an instance: its ``value`` (instances as :class:`Instance`, lists as lists)."""

    def __init__(self, value: object = None) -> None:
        self.value = value

    def get_value(self) -> object:
        return self.value


class Instance:
    """
    An instance of an entity after the compile, as export hooks see it (``Entity.get_all_instances()``):
    its ``type``, its ``slots`` (every attribute by name) and ``get_attribute(name)``. One object per
    instance (:meth:`Instance.of`), so instances can be compared and used as keys. Plugins see
    instances through ``inmanta.execute.proxy.DynamicProxy`` instead.
    """

    _by_identity: dict[int, "Instance"] = {}

    @classmethod
    def of(cls, handle: object) -> "Instance":
        key = _native.get().identity(handle)
        found = cls._by_identity.get(key)
        if found is None:
            found = cls._by_identity[key] = cls(handle)
        return found

    def __init__(self, handle: object) -> None:
        from inmanta.ast.entity import Entity

        self._handle = handle
        self.type = Entity.named(_native.get().entity(handle))
        self._slots: dict[str, ResultVariable] = {}

    @staticmethod
    def _value(raw: object) -> object:
        from inmanta.execute.util import NoneValue, Unknown

        if raw is None:
            return NoneValue()
        if _native.is_unknown(raw):
            return Unknown(None)
        if not _native.is_handle(raw):
            return raw
        kind = _native.get().kind(raw)
        if kind == "instance":
            return Instance.of(raw)
        if kind == "list":
            return [Instance._value(item) for item in _native.get().items(raw)]
        if kind == "dict":
            return {key: Instance._value(_native.get().get(raw, key)) for key in _native.get().keys(raw)}
        return raw

    def get_attribute(self, name: str) -> ResultVariable:
        found = self._slots.get(name)
        if found is None:
            from inmanta.ast import OptionalValueException

            try:
                raw = _native.get().attribute(self._handle, name)
            except OptionalValueException:  # an optional relation without value reads as null
                raw = None
            found = self._slots[name] = ResultVariable(self._value(raw))
        return found

    @property
    def slots(self) -> dict[str, ResultVariable]:
        return {name: self.get_attribute(name) for name in self.type.get_all_attribute_names()}

    def __repr__(self) -> str:
        return _native.get().display(self._handle)


class Resolver:
    pass


class QueueScheduler:
    pass
