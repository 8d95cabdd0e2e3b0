"""
The attributes and relation ends of an entity (:meth:`inmanta.ast.entity.Entity.get_attributes`), as
the compiler describes them: their name, type and, for relations, multiplicity and other end.
"""
from typing import Optional


class Attribute:
    def __init__(self, entity: object = None, value_type: object = None, name: str = "") -> None:
        self.entity = entity
        self.type = value_type
        self.name = name

    def get_name(self) -> str:
        return self.name

    def get_type(self) -> object:
        return self.type

    def get_entity(self) -> object:
        return self.entity

    def __repr__(self) -> str:
        return "%s.%s" % (self.entity, self.name)


class RelationAttribute(Attribute):
    """One end of a relation: ``low``/``high`` its multiplicity (``high`` None: unbounded), ``end``
    the relation's other end (None for a relation without one)."""

    def __init__(
        self,
        entity: object = None,
        value_type: object = None,
        name: str = "",
        low: int = 0,
        high: Optional[int] = None,
        other_end: Optional[str] = None,
    ) -> None:
        super().__init__(entity, value_type, name)
        self.low = low
        self.high = high
        self._other_end = other_end

    @property
    def end(self) -> Optional["RelationAttribute"]:
        if self._other_end is None:
            return None
        other = self.type.get_attributes().get(self._other_end)  # type: ignore[attr-defined]
        return other if isinstance(other, RelationAttribute) else None
