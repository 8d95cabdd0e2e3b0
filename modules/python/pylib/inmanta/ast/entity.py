"""
An entity type of the model, by name. inmanta-cpp keeps the types in its C++ compiler; this class
answers what code commonly asks of a type (its name, parents and instances) through the compiler.
"""

from typing import Optional

from inmanta import _native
from inmanta.ast import Namespace


class Entity:
    """An entity type, such as ``std::File``."""

    def __init__(self, full_name: str) -> None:
        self._full_name = full_name
        ns, _, name = full_name.rpartition("::")
        self.name = name
        self.namespace = Namespace.from_full_name(ns) if ns else Namespace("__root__")
        self._parents: Optional[list["Entity"]] = None

    def get_full_name(self) -> str:
        return self._full_name

    def get_name(self) -> str:
        return self.name

    def get_namespace(self) -> Namespace:
        return self.namespace

    def type_string(self) -> str:
        return self._full_name

    def type_string_internal(self) -> str:
        return self._full_name

    @property
    def parent_entities(self) -> list["Entity"]:
        if self._parents is None:
            self._parents = [Entity(name) for name in _native.parents(self._full_name)]
        return self._parents

    def get_all_parent_entities(self) -> list["Entity"]:
        seen: dict[str, Entity] = {}
        todo = list(self.parent_entities)
        while todo:
            parent = todo.pop(0)
            if parent.get_full_name() not in seen:
                seen[parent.get_full_name()] = parent
                todo.extend(parent.parent_entities)
        return list(seen.values())

    def get_all_parent_names(self) -> list[str]:
        return [parent.get_full_name() for parent in self.get_all_parent_entities()]

    def is_subclass(self, other: "Entity") -> bool:
        return other.get_full_name() in self.get_all_parent_names()

    def get_all_instances(self) -> list[object]:
        """The instances of this entity and its subtypes, as the compiler's opaque values."""
        return list(_native.get().instances_of(self._full_name))

    def __str__(self) -> str:
        return self._full_name

    def __repr__(self) -> str:
        return self._full_name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Entity) and other._full_name == self._full_name

    def __hash__(self) -> int:
        return hash(self._full_name)
