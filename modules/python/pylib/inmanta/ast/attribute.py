"""Names of the reference's attribute classes, for ``isinstance`` checks in module code."""


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


class RelationAttribute(Attribute):
    pass
