"""
Type names of the reference's type system, for code that refers to them. Types are checked by the
C++ compiler; the plugin layer describes them as the DSL type strings of CONTRACT.md.
"""

from inmanta.ast.entity import Entity  # noqa: F401


class Type:
    def type_string(self) -> str:
        raise NotImplementedError()

    def __str__(self) -> str:
        return self.type_string()


class ModelType(Type):
    """A type as the model writes it (``string``, ``int[]``, ``std::port``), for an attribute."""

    def __init__(self, text: str) -> None:
        self._text = text

    def type_string(self) -> str:
        return self._text

    def get_full_name(self) -> str:
        return self._text


class _Named(Type):
    _name = "any"

    def type_string(self) -> str:
        return self._name


class Any(_Named):
    _name = "any"


class Null(_Named):
    _name = "null"


class String(_Named):
    _name = "string"


class Number(_Named):
    _name = "number"


class Integer(_Named):
    _name = "int"


class Float(_Named):
    _name = "float"


class Bool(_Named):
    _name = "bool"


class List(_Named):
    _name = "list"


class Dict(_Named):
    _name = "dict"
