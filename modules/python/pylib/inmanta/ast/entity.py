"""
An entity type of the model, by name. inmanta-cpp keeps the types in its C++ compiler; this class
answers what code commonly asks of a type (its name, parents, attributes and relations, instances)
through the compiler. One object per entity (:meth:`Entity.named`), so that types, their attributes
and instances can be compared and used as keys, as export hooks (graph's) do.
"""

from typing import Any, Optional

from inmanta import _native
from inmanta.ast import Namespace


class Entity:
    """An entity type, such as ``std::File``."""

    _named: dict[str, "Entity"] = {}

    @classmethod
    def named(cls, full_name: str) -> "Entity":
        """The one object of the entity with that name."""
        found = cls._named.get(full_name)
        if found is None:
            found = cls._named[full_name] = cls(full_name)
        return found

    def __init__(self, full_name: str) -> None:
        self._full_name = full_name
        ns, _, name = full_name.rpartition("::")
        self.name = name
        self.namespace = Namespace.from_full_name(ns) if ns else Namespace("__root__")
        self._parents: Optional[list["Entity"]] = None
        self._attributes: Optional[dict[str, Any]] = None

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
            self._parents = [Entity.named(name) for name in _native.parents(self._full_name)]
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

    def get_attributes(self) -> dict[str, Any]:
        """The attributes and relation ends declared in this entity (not its parents'), by name."""
        if self._attributes is None:
            from inmanta.ast.attribute import Attribute, RelationAttribute
            from inmanta.ast.type import ModelType

            attributes: dict[str, Any] = {}
            for name, type_text, relation, low, high, other_end in _native.attributes(self._full_name):
                if relation:
                    attributes[name] = RelationAttribute(self, Entity.named(type_text), name, low, high, other_end)
                else:
                    attributes[name] = Attribute(self, ModelType(type_text), name)
            self._attributes = attributes
        return self._attributes

    def get_attribute(self, name: str) -> Optional[Any]:
        """The attribute of that name, declared here or inherited; None when there is none."""
        found = self.get_attributes().get(name)
        if found is not None:
            return found
        for parent in self.parent_entities:
            found = parent.get_attribute(name)
            if found is not None:
                return found
        return None

    def has_attribute(self, name: str) -> bool:
        return self.get_attribute(name) is not None

    def get_all_attribute_names(self) -> list[str]:
        """Every attribute's name, inherited ones included."""
        names = list(self.get_attributes())
        for parent in self.get_all_parent_entities():
            names.extend(n for n in parent.get_attributes() if n not in names)
        return names

    def get_all_instances(self) -> list[object]:
        """The instances of this entity and its subtypes (:class:`inmanta.execute.runtime.Instance`)."""
        from inmanta.execute.runtime import Instance

        return [Instance.of(handle) for handle in _native.get().instances_of(self._full_name)]

    def __str__(self) -> str:
        return self._full_name

    def __repr__(self) -> str:
        return self._full_name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Entity) and other._full_name == self._full_name

    def __hash__(self) -> int:
        return hash(self._full_name)
