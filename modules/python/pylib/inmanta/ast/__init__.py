"""
The compiler's exceptions and location types, as module code raises and catches them.

The compiler itself is C++: an exception of this package raised from a plugin crosses back to it
through ``inmanta._host`` (its class name, message and location), and the C++ side reports it the
way the reference reports the same class. ``Namespace`` and ``LocatableString`` are small stand-ins
that carry a name, for code that only reads names.
"""

import traceback
from typing import Optional

from inmanta.execute.util import Unknown
from inmanta.stable_api import stable_api
from inmanta.warnings import InmantaWarning


class Location:
    """A line in a file (1-based)."""

    __slots__ = ("file", "lnr")

    def __init__(self, file: str, lnr: int) -> None:
        self.file = file
        self.lnr = lnr

    def __str__(self) -> str:
        return "%s:%d" % (self.file, self.lnr)

    def __repr__(self) -> str:
        return str(self)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Location) and (self.file, self.lnr) == (other.file, other.lnr)

    def __hash__(self) -> int:
        return hash((self.file, self.lnr))

    def merge(self, other: Optional["Location"]) -> "Location":
        if other is None:
            return self
        return Location(self.file, min(self.lnr, other.lnr))


class Range(Location):
    """A span of text: start line and column, end line and (exclusive) column, all 1-based."""

    __slots__ = ("start_char", "end_lnr", "end_char")

    def __init__(self, file: str, start_lnr: int, start_char: int, end_lnr: int, end_char: int) -> None:
        Location.__init__(self, file, start_lnr)
        self.start_char = start_char
        self.end_lnr = end_lnr
        self.end_char = end_char

    def __str__(self) -> str:
        return "%s:%d:%d" % (self.file, self.lnr, self.start_char)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Range):
            return False
        return (self.file, self.lnr, self.start_char, self.end_lnr, self.end_char) == (
            other.file,
            other.lnr,
            other.start_char,
            other.end_lnr,
            other.end_char,
        )

    def __hash__(self) -> int:
        return hash((self.file, self.lnr, self.start_char, self.end_lnr, self.end_char))


class Locatable:
    """Something with a location in the model."""

    def __init__(self) -> None:
        self._location: Optional[Location] = None

    def set_location(self, location: Location) -> None:
        self._location = location

    def get_location(self) -> Optional[Location]:
        return self._location

    location = property(get_location, set_location)


class WithComment:
    comment: Optional[str] = None


class Namespace(Locatable):
    """
    A namespace of the model, by name only: ``Namespace("ip")``, or a child ``Namespace("sub", parent)``.
    """

    def __init__(self, name: str, parent: Optional["Namespace"] = None) -> None:
        Locatable.__init__(self)
        self.name = name
        self.parent = parent

    def get_name(self) -> str:
        return self.name

    def get_full_name(self) -> str:
        if self.parent is None:
            return self.name
        return self.parent.get_full_name() + "::" + self.name

    def get_parent(self) -> Optional["Namespace"]:
        return self.parent

    def get_root(self) -> "Namespace":
        return self if self.parent is None else self.parent.get_root()

    @classmethod
    def from_full_name(cls, full_name: str) -> "Namespace":
        ns: Optional[Namespace] = None
        for part in full_name.split("::"):
            ns = Namespace(part, ns)
        assert ns is not None
        return ns

    def __str__(self) -> str:
        return self.get_full_name()

    def __repr__(self) -> str:
        return "Namespace(%s)" % self.get_full_name()


class LocatableString:
    """A string with the place in the model it was written."""

    def __init__(self, value: str, location: Optional[Range] = None, lexpos: int = 0, namespace: Optional[Namespace] = None):
        self.value = value
        self.location = location
        self.lexpos = lexpos
        self.namespace = namespace

    def get_value(self) -> str:
        return self.value

    def get_location(self) -> Optional[Range]:
        return self.location

    def __str__(self) -> str:
        return self.value

    def __repr__(self) -> str:
        return repr(self.value)


# ---------------------------------------------------------------------------------------------------------------------
# Exceptions
# ---------------------------------------------------------------------------------------------------------------------


@stable_api
class CompilerException(Exception):
    """Base class of the errors the compiler reports."""

    def __init__(self, msg: str) -> None:
        Exception.__init__(self, msg)
        self.msg = msg
        self.location: Optional[Location] = None

    def set_location(self, location: Optional[Location]) -> None:
        if self.location is None:
            self.location = location

    def get_message(self) -> str:
        return self.msg

    def get_location(self) -> Optional[Location]:
        return self.location

    def get_causes(self) -> "list[CompilerException]":
        return []

    def format(self) -> str:
        location = self.get_location()
        if location is None:
            return self.get_message()
        return f"{self.get_message()} ({location})"

    def format_trace(self, indent: str = "", indent_level: int = 0) -> str:
        text = indent * indent_level + self.format()
        for cause in self.get_causes():
            text += "\n" + indent * indent_level + "caused by:\n" + cause.format_trace(indent, indent_level + 1)
        return text

    def importantance(self) -> int:
        return 100

    def __str__(self) -> str:
        return self.format()


@stable_api
class RuntimeException(CompilerException):
    """An error found while the model runs. ``stmt`` (optional) is what it is reported on."""

    def __init__(self, stmt: Optional[object], msg: str) -> None:
        CompilerException.__init__(self, msg)
        self.stmt = None
        if stmt is not None:
            get_location = getattr(stmt, "get_location", None)
            self.set_location(get_location() if get_location is not None else None)
            self.stmt = stmt

    def set_statement(self, stmt: object, replace: bool = True) -> None:
        for cause in self.get_causes():
            if isinstance(cause, RuntimeException):
                cause.set_statement(stmt, replace)
        if replace or self.stmt is None:
            get_location = getattr(stmt, "get_location", None)
            if get_location is not None:
                self.location = get_location()
            self.stmt = stmt

    def format(self) -> str:
        if self.stmt is not None:
            return f"{self.get_message()} (reported in {self.stmt} ({self.get_location()}))"
        return CompilerException.format(self)


class InvalidCompilerState(RuntimeException):
    def __init__(self, stmt: Optional[object], msg: str) -> None:
        RuntimeException.__init__(
            self, stmt, "Invalid compiler state, this likely indicates a bug in the compiler. Details: %s" % msg
        )


class CompilerRuntimeWarning(InmantaWarning, RuntimeException):
    """A warning of the compiler about the model."""

    def __init__(self, stmt: Optional[object], msg: str) -> None:
        InmantaWarning.__init__(self)
        RuntimeException.__init__(self, stmt, msg)


class CompilerDeprecationWarning(CompilerRuntimeWarning):
    pass


class VariableShadowWarning(CompilerRuntimeWarning):
    pass


class TypeNotFoundException(RuntimeException):
    """A type name that does not resolve."""

    def __init__(self, type: object, ns: object) -> None:
        RuntimeException.__init__(self, None, f"could not find type {type} in namespace {ns}")
        self.type = type
        self.ns = ns
        get_location = getattr(type, "get_location", None)
        if get_location is not None:
            self.set_location(get_location())

    def importantance(self) -> int:
        return 20


def stringify_exception(exn: BaseException) -> str:
    if isinstance(exn, CompilerException):
        return str(exn)
    return f"{exn.__class__.__name__}: {exn}"


@stable_api
class ExternalException(RuntimeException):
    """A Python exception (not a compiler one) raised by plugin code, wrapped for the compiler."""

    def __init__(self, stmt: Optional[object], msg: str, cause: BaseException) -> None:
        RuntimeException.__init__(self, stmt, msg)
        self.__cause__ = cause

    def format_trace(self, indent: str = "", indent_level: int = 0) -> str:
        text = indent * indent_level + self.format().replace("\n", "\n" + indent * indent_level)
        text += "\n" + indent * indent_level + "caused by:\n"
        for line in traceback.format_exception_only(type(self.__cause__), self.__cause__):
            text += indent * (indent_level + 1) + line
        return text

    def importantance(self) -> int:
        return 60


@stable_api
class ExplicitPluginException(ExternalException):
    """A :class:`PluginException` raised by a plugin, wrapped for the compiler."""

    def get_message(self) -> str:
        return self.msg + "\n" + getattr(self.__cause__, "message", str(self.__cause__))


class WrappingRuntimeException(RuntimeException):
    """A compiler error that wraps another one (its cause)."""

    def __init__(self, stmt: Optional[object], msg: str, cause: CompilerException) -> None:
        if stmt is None and isinstance(cause, RuntimeException):
            stmt = cause.stmt
        RuntimeException.__init__(self, stmt, msg)
        self.__cause__ = cause

    def get_causes(self) -> list[CompilerException]:
        return [self.__cause__]  # type: ignore[list-item]

    def importantance(self) -> int:
        return self.__cause__.importantance() + 1  # type: ignore[union-attr]


@stable_api
class AttributeException(WrappingRuntimeException):
    def __init__(self, stmt: object, instance: object, attribute: str, cause: RuntimeException) -> None:
        WrappingRuntimeException.__init__(
            self, stmt, f"Could not set attribute `{attribute}` on instance `{instance}`", cause
        )
        self.attribute = attribute
        self.instance = instance


class PluginTypeException(WrappingRuntimeException):
    """A plugin argument or return value that does not match the plugin's annotation."""


class OptionalValueException(RuntimeException):
    """An optional relation ([0:1]) read while it has no value."""

    def __init__(self, instance: object, attribute: object) -> None:
        RuntimeException.__init__(
            self, None, f"Optional variable accessed that has no value (attribute `{attribute}` of `{instance}`)"
        )
        self.instance = instance
        self.attribute = attribute

    def importantance(self) -> int:
        return 61


class IndexException(RuntimeException):
    def importantance(self) -> int:
        return 10


class TypingException(RuntimeException):
    def importantance(self) -> int:
        return 10


class InvalidTypeAnnotation(TypingException):
    """A plugin annotation that is not a type."""


class DirectExecuteException(TypingException):
    def importantance(self) -> int:
        return 11


class KeyException(RuntimeException):
    def importantance(self) -> int:
        return 70


class NotFoundException(RuntimeException):
    """A name (variable, attribute) that does not exist."""

    def __init__(self, stmt: Optional[object], name: str, msg: Optional[str] = None) -> None:
        RuntimeException.__init__(self, stmt, msg if msg is not None else "could not find value %s" % name)
        self.name = name

    def importantance(self) -> int:
        return 20


@stable_api
class DoubleSetException(RuntimeException):
    def __init__(self, variable: object, stmt: Optional[object], newvalue: object, newlocation: object) -> None:
        self.variable = variable
        self.newvalue = newvalue
        self.newlocation = newlocation
        RuntimeException.__init__(self, stmt, f"value set twice: new value {newvalue} set at {newlocation}")

    def importantance(self) -> int:
        return 51


class ModifiedAfterFreezeException(RuntimeException):
    def __init__(self, *args: object, **kwargs: object) -> None:
        RuntimeException.__init__(self, None, "List modified after freeze")

    def importantance(self) -> int:
        return 50


class DuplicateException(TypingException):
    def __init__(self, stmt: object, other: object, msg: str) -> None:
        TypingException.__init__(self, stmt, msg)
        self.other = other

    def importantance(self) -> int:
        return 40


class CompilerError(Exception):
    pass


class MultiException(CompilerException):
    """Several compiler errors reported at once."""

    def __init__(self, others: list[CompilerException]) -> None:
        CompilerException.__init__(self, "")
        self.others = others

    def get_causes(self) -> list[CompilerException]:
        return list(self.others)

    def format(self) -> str:
        return "Reported %d errors" % len(self.others)

    def __str__(self) -> str:
        return "Reported %d errors:\n\t" % len(self.others) + "\n\t".join(str(e) for e in self.others)


class UnsetException(RuntimeException):
    """
    A value that is not available yet. In inmanta-cpp the compiler suspends the plugin call itself when
    it reads such a value, so plugin code never sees this exception; it is here for code that names it.
    """

    def __init__(self, msg: str, instance: Optional[object] = None, attribute: Optional[object] = None) -> None:
        RuntimeException.__init__(self, None, msg)
        self.instance = instance
        self.attribute = attribute

    def get_result_variable(self) -> Optional[object]:
        return self.instance


class MultiUnsetException(RuntimeException):
    def __init__(self, msg: str, result_variables: list[object]) -> None:
        RuntimeException.__init__(self, None, msg)
        self.result_variables = result_variables


class UnknownException(Exception):
    """
    Raised when plugin code reads a value that is unknown in this compile. A plugin that lets it
    escape returns an unknown value itself.
    """

    def __init__(self, unknown: Unknown) -> None:
        Exception.__init__(self)
        self.unknown = unknown


class UnexpectedReference(RuntimeException):
    """A reference value where none was declared (references do not exist in inmanta-cpp's models)."""

    def __init__(self, *, stmt: Optional[object] = None, reference: object = None, message: str = "") -> None:
        RuntimeException.__init__(self, stmt, message)
        self.reference = reference


class HyphenException(RuntimeException):
    def __init__(self, stmt: object) -> None:
        RuntimeException.__init__(
            self, stmt, "The use of '-' in identifiers is not allowed. please rename %s." % getattr(stmt, "value", stmt)
        )


@stable_api
class PluginException(Exception):
    """Raise this (or a subclass) from a plugin to report an error to the user of the model."""

    def __init__(self, message: str) -> None:
        Exception.__init__(self, message)
        self.message = message
