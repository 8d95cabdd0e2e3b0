"""
Plugins: Python functions that a model calls (``@plugin``).

``@plugin`` records the function; ``inmanta._host.load`` reads each recorded function's signature
the way the reference does (every argument annotated, a ``Context`` argument anywhere, defaults,
keyword-only arguments, ``*args``/``**kwargs``, no return annotation meaning ``any``) and hands the
C++ compiler the DSL type of each argument as a string. Annotations may be DSL type strings
(``"string"``, ``"std::Entity"``, ``"ip::ip[]"``), passed on as written, or Python types
(``str``, ``list[str]``, ``dict[str, int]``, ``Optional[int]``, ``int | None``, ``typing.Any``,
``None``, ``Annotated[..., ModelType["ns::T"]]``), converted like the reference converts them.
"""

import collections.abc
import dataclasses
import inspect
import logging
import numbers
import os
import types
import typing
import warnings
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Optional, TypeVar, Union

from inmanta import _native, const
from inmanta.ast import (  # noqa: F401  (names modules import from here)
    InvalidTypeAnnotation,
    Location,
    Namespace,
    PluginException,
    RuntimeException,
    TypeNotFoundException,
    TypingException,
)
from inmanta.config import Config
from inmanta.stable_api import stable_api
from inmanta.warnings import InmantaWarning

T = TypeVar("T")
T_FUNC = TypeVar("T_FUNC", bound=Callable[..., object])

LOGGER = logging.getLogger(__name__)


class PluginDeprecationWarning(InmantaWarning):
    pass


# ---------------------------------------------------------------------------------------------------------------------
# Context
# ---------------------------------------------------------------------------------------------------------------------


class _CallSite:
    """
    What ``ctx.owner`` is in the reference (the call statement): its namespace (where the call is
    written, e.g. ``__config__`` for main.cf) and its location.
    """

    def __init__(self, plugin_namespace: Namespace) -> None:
        self._plugin_namespace = plugin_namespace

    @property
    def namespace(self) -> Namespace:
        call_namespace = getattr(_native.get(), "call_namespace", None)
        if call_namespace is None:  # an older compiler: the plugin's own namespace is the best guess
            return self._plugin_namespace
        return Namespace.from_full_name(call_namespace())

    def get_location(self) -> Location:
        file, line = _native.get().call_location()
        return Location(file, line)

    location = property(get_location)

    def __str__(self) -> str:
        return str(self.get_location())


@stable_api
class Context:
    """Given to a plugin that declares an argument annotated with ``Context``."""

    __client: Optional[object] = None
    __sync_client: Optional[object] = None

    def __init__(self, plugin: "PluginRegistration") -> None:
        self.plugin = plugin
        self.owner = _CallSite(plugin.namespace)
        self.resolver = None
        self.queue = None
        self.result = None
        self.compiler = None

    def get_resolver(self) -> None:
        return self.resolver

    def get_queue_scheduler(self) -> None:
        return self.queue

    def get_compiler(self) -> None:
        return self.compiler

    def get_type(self, name: object) -> object:
        """The entity type ``name`` (full name) of the model, as :class:`inmanta.ast.entity.Entity`."""
        from inmanta.ast.entity import Entity

        full_name = str(name)
        if not _native.entity_exists(full_name):
            raise TypeNotFoundException(name, self.owner.namespace)
        return Entity(full_name)

    def get_environment_id(self) -> str:
        """The environment's id as a string; ``"None"`` when none is configured, as in the reference."""
        return str(Config.get("config", "environment", None))

    def get_data_dir(self) -> str:
        """``data/<namespace>`` in the project, created when absent."""
        data_dir = os.path.join(_native.get().project_dir(), "data", self.plugin.namespace.get_full_name())
        os.makedirs(data_dir, exist_ok=True)
        return data_dir

    def get_client(self) -> object:
        from inmanta import protocol

        if Context.__client is None:
            Context.__client = protocol.Client("compiler")
        return Context.__client

    def get_sync_client(self) -> object:
        from inmanta import protocol

        if Context.__sync_client is None:
            Context.__sync_client = protocol.SyncClient("compiler")
        return Context.__sync_client

    def run_sync(self, function: Callable[[], Awaitable[T]], timeout: int = 5) -> T:
        """Run the coroutine that ``function()`` returns to completion and return its result."""
        from inmanta import util

        return util.run_coroutine(function(), timeout)  # type: ignore[attr-defined, no-any-return]


# ---------------------------------------------------------------------------------------------------------------------
# Python annotations -> DSL type strings
# ---------------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ModelType:
    """
    Marks a Python annotation with the model type to check:
    ``Annotated[typing.Any, ModelType["std::Entity"]]`` checks ``std::Entity``.
    """

    model_type: str

    def __class_getitem__(cls, key: str) -> "ModelType":
        return cls(key)


# Annotations that name a DSL type directly.
_SPECIAL_ANNOTATIONS: dict[object, str] = {"any": "any", "expression": "expression", "null": "null", None: "null"}

# Plain Python classes and their DSL types.
_PYTHON_TYPES: dict[object, str] = {
    str: "string",
    float: "float",
    numbers.Number: "number",
    int: "int",
    bool: "bool",
    dict: "dict",
    typing.Mapping: "dict",
    Mapping: "dict",
    list: "list",
    typing.Sequence: "list",
    Sequence: "list",
    object: "any",
}

# A DSL type as a small tree before it is written out:
#   ("name", "string") | ("list", elem or None) | ("dict", value or None) | ("nullable", t) | ("union", [t, ...])
_DslType = tuple


def _is_union(tp: object) -> bool:
    origin = typing.get_origin(tp)
    return tp is typing.Union or origin is typing.Union or origin is types.UnionType


def _has_none(tp: object) -> bool:
    if tp is type(None) or tp is None:
        return True
    return _is_union(tp) and any(_has_none(arg) for arg in typing.get_args(tp))


def _make_union(members: list[_DslType]) -> _DslType:
    """Flatten, pull ``null`` outwards, drop repeats, and unwrap a single member (the reference's create_union)."""
    todo = list(members)
    flat: list[_DslType] = []
    nullable = False
    while todo:
        current = todo.pop(0)
        if current[0] == "union":
            todo.extend(current[1])
        elif current[0] == "nullable":
            nullable = True
            todo.append(current[1])
        elif current == ("name", "null"):
            nullable = True
        elif current not in flat:
            flat.append(current)
    if not flat:
        return ("name", "null")
    result: _DslType = flat[0] if len(flat) == 1 else ("union", flat)
    return ("nullable", result) if nullable else result


def _write(tp: _DslType) -> str:
    """The DSL type string of CONTRACT.md; a union inside ``[]``/``?`` is parenthesised."""

    def grouped(inner: _DslType) -> str:
        text = _write(inner)
        return f"({text})" if inner[0] == "union" else text

    kind = tp[0]
    if kind == "name":
        return tp[1]
    if kind == "list":
        return "list" if tp[1] is None else grouped(tp[1]) + "[]"
    if kind == "dict":
        return "dict" if tp[1] is None else "dict[" + _write(tp[1]) + "]"
    if kind == "nullable":
        return grouped(tp[1]) + "?"
    return "|".join(grouped(member) for member in tp[1])


def _to_dsl(python_type: Any) -> _DslType:
    """A Python type annotation as a DSL type (the reference's to_dsl_type)."""
    alias_type = getattr(typing, "TypeAliasType", None)
    if alias_type is not None and isinstance(python_type, alias_type):
        return _to_dsl(python_type.__value__)

    if python_type is typing.Any:
        return ("name", "any")
    if python_type is None or python_type is type(None):
        return ("name", "null")

    if _is_union(python_type):
        args = typing.get_args(python_type)
        if any(_has_none(arg) for arg in args):
            others = [arg for arg in args if not _has_none(arg)]
            if not others:
                return ("name", "null")
            if len(others) == 1:
                return _make_union([("nullable", _to_dsl(others[0]))])
            return _make_union([_to_dsl(arg) for arg in others] + [("name", "null")])
        return _make_union([_to_dsl(arg) for arg in args])

    if dataclasses.is_dataclass(python_type):
        raise TypingException(None, f"invalid type {python_type}, this dataclass has no associated inmanta entity")

    origin = typing.get_origin(python_type)
    if origin is typing.Annotated:
        for meta in reversed(python_type.__metadata__):
            if isinstance(meta, ModelType):
                return ("name", meta.model_type)
        return _to_dsl(typing.get_args(python_type)[0])

    # The reference leaves tuple[...], Callable[...] and ClassVar[...] to the table below (so: any, with a warning).
    if origin is not None and isinstance(origin, type) and origin not in (tuple, collections.abc.Callable):
        converted = _convert_generic(python_type, origin)
        if converted is not None:
            return converted

    try:
        known = _PYTHON_TYPES.get(python_type)
    except TypeError:  # an unhashable annotation
        known = None
    if known is not None:
        return ("name", known)

    warnings.warn(
        InmantaWarning(
            f"Python type {python_type} was implicitly cast to 'Any' because no matching type was found in the Inmanta DSL. "
            "Please refer to the documentation for an overview of supported types at the plugin boundary."
        )
    )
    return ("name", "any")


def _convert_generic(python_type: Any, origin: type) -> Optional[_DslType]:
    """``origin[args]`` (``list[str]``, ``dict[str, int]``, ``Sequence[int]``, ...) as a DSL type, or None."""
    if issubclass(origin, collections.abc.Mapping):
        if origin not in (collections.abc.Mapping, dict):
            raise TypingException(None, f"invalid type {python_type}, dictionary types should be Mapping or dict")
        args = typing.get_args(python_type)
        if not args:
            return ("dict", None)
        key_is_str = False
        try:
            key_is_str = issubclass(args[0], str)
        except TypeError:
            pass
        if not key_is_str:
            raise TypingException(
                None, f"invalid type {python_type}, the keys of any dict should be 'str', got {args[0]} instead"
            )
        if len(args) == 1:
            return ("dict", None)
        return ("dict", _to_dsl(args[1]))

    if issubclass(origin, collections.abc.Sequence):
        if origin not in (collections.abc.Sequence, list):
            raise TypingException(None, f"invalid type {python_type}, list types should be Sequence or list")
        args = typing.get_args(python_type)
        return ("list", _to_dsl(args[0]) if args else None)

    if issubclass(origin, collections.abc.Set):
        raise TypingException(None, f"invalid type {python_type}, set is not supported on the plugin boundary")
    return None


def annotation_to_dsl(annotation: object, plugin_name: str, value_name: str) -> str:
    """
    The DSL type string for one annotation of plugin ``plugin_name`` (``value_name``: the argument's
    name, or ``return value``). Raises the reference's exceptions for annotations it refuses.
    """
    try:
        special = _SPECIAL_ANNOTATIONS.get(annotation)  # type: ignore[call-overload]
    except TypeError:
        special = None
    if special is not None:
        return special
    if isinstance(annotation, str):
        return annotation
    if _is_union(annotation) and not typing.get_args(annotation):
        raise InvalidTypeAnnotation(None, f"Union type must be subscripted, got {annotation}")
    alias_type = getattr(typing, "TypeAliasType", None)
    if (
        isinstance(annotation, type)
        or (alias_type is not None and isinstance(annotation, alias_type))
        or typing.get_origin(annotation) is not None
    ):
        return _write(_to_dsl(annotation))
    raise InvalidTypeAnnotation(
        None,
        "Bad annotation in plugin %s for %s, expected str or python type but got %s (%s)"
        % (plugin_name, value_name, type(annotation).__name__, annotation),
    )


# ---------------------------------------------------------------------------------------------------------------------
# Registration
# ---------------------------------------------------------------------------------------------------------------------


class PluginRegistration:
    """
    One ``@plugin`` function. ``fnc.__plugin__`` is this object (the reference puts a class there; code
    that only calls ``deprecate_function`` or reads the names works with both).
    """

    deprecated: bool = False
    replaced_by: Optional[str] = None

    def __init__(
        self,
        function: Callable[..., object],
        name: str,
        commands: Optional[list[str]],
        emits_statements: bool,
        allow_unknown: bool,
    ) -> None:
        module_parts = str(function.__module__).split(".")
        if module_parts[0] != const.PLUGINS_PACKAGE:
            raise Exception("All plugin modules should be loaded in the %s package" % const.PLUGINS_PACKAGE)
        self.__function__ = function
        self.__function_name__ = name
        self.__module__ = function.__module__  # type: ignore[assignment]
        self.namespace = Namespace.from_full_name("::".join(module_parts[1:]))
        self.ns = self.namespace
        self.__fq_plugin_name__ = "::".join(module_parts[1:] + [name])
        self.opts = {"bin": commands, "emits_statements": emits_statements, "allow_unknown": allow_unknown}
        self.deprecated = False
        self.replaced_by = None
        # filled in by analyse()
        self.context_index = -1

    @property
    def function(self) -> Callable[..., object]:
        return self.__function__

    @property
    def name(self) -> str:
        return self.__function_name__

    def get_full_name(self) -> str:
        return self.__fq_plugin_name__

    def deprecate_function(self, replaced_by: Optional[str] = None) -> None:
        self.deprecated = True
        self.replaced_by = replaced_by

    def is_accept_unknowns(self) -> bool:
        return bool(self.opts["allow_unknown"])

    def location(self) -> tuple[str, int]:
        """(file, line) as the reference computes them: the line after the first decorator line."""
        function = self.__function__
        filename = inspect.getsourcefile(function) or getattr(function.__code__, "co_filename", "")
        try:
            line = inspect.getsourcelines(function)[1] + 1
        except (OSError, TypeError):
            line = 1
        return filename, line

    def check_requirements(self) -> None:
        """The reference checks ``commands`` at every call."""
        for command in self.opts["bin"] or []:
            import shutil  # (only here: it costs the start of every compile)

            if shutil.which(command) is None:
                raise Exception(f"{self.__function_name__} requires {command} to be available in $PATH")

    def describe(self) -> dict[str, object]:
        """The registry entry of CONTRACT.md for this plugin."""
        file, line = self.location()
        entry: dict[str, object] = {
            "namespace": self.namespace.get_full_name(),
            "name": self.__function_name__,
            "function": self,
            "allow_unknown": self.is_accept_unknowns(),
            "emits_statements": bool(self.opts["emits_statements"]),
            "deprecated": self.deprecated,
            "replaced_by": self.replaced_by,
            "file": file,
            "line": line,
        }
        try:
            entry.update(self._analyse())
        except RuntimeException as e:
            # the reference raises this when it builds the plugin type, before the model runs
            entry.update(
                {"params": [], "var_args": None, "var_kwargs": None, "return_type": "any", "context": False}
            )
            entry["error"] = {"kind": type(e).__name__, "message": e.get_message()}
            self.context_index = -1
        return entry

    def _analyse(self) -> dict[str, object]:
        """Signature -> params, var_args, var_kwargs, return_type, context (the reference's _load_signature + normalize)."""
        spec = inspect.getfullargspec(self.__function__)
        full_name = self.get_full_name()

        def annotation_of(arg: str) -> object:
            if arg not in spec.annotations:
                raise RuntimeException(
                    None, f"All arguments of plugin {full_name!r} should be annotated: {arg!r} has no annotation"
                )
            return spec.annotations[arg]

        # first every annotation must exist (construction), then every type must convert (normalization)
        var_args_annotation = annotation_of(spec.varargs) if spec.varargs is not None else None
        var_kwargs_annotation = annotation_of(spec.varkw) if spec.varkw is not None else None

        positional: list[tuple[str, object, bool, object]] = []
        context_index = -1
        first_default = len(spec.args) - len(spec.defaults or ())
        for position, arg in enumerate(spec.args):
            annotation = annotation_of(arg)
            if annotation == Context:
                context_index = position
                continue
            has_default = position >= first_default
            default = spec.defaults[position - first_default] if has_default else None  # type: ignore[index]
            positional.append((arg, annotation, has_default, default))

        keyword_only: list[tuple[str, object, bool, object]] = []
        for arg in spec.kwonlyargs:
            annotation = annotation_of(arg)
            defaults = spec.kwonlydefaults or {}
            keyword_only.append((arg, annotation, arg in defaults, defaults.get(arg)))

        params: list[dict[str, object]] = []
        for (arg, annotation, has_default, default), keyword in [(p, False) for p in positional] + [
            (k, True) for k in keyword_only
        ]:
            param: dict[str, object] = {
                "name": arg,
                "type": annotation_to_dsl(annotation, full_name, arg),
                "keyword_only": keyword,
            }
            if has_default:
                from inmanta import _host

                param["default"] = _host.default_to_raw(default)
            params.append(param)

        var_args = annotation_to_dsl(var_args_annotation, full_name, spec.varargs) if spec.varargs is not None else None
        var_kwargs = annotation_to_dsl(var_kwargs_annotation, full_name, spec.varkw) if spec.varkw is not None else None
        if "return" in spec.annotations:
            return_type = annotation_to_dsl(spec.annotations["return"], full_name, "return value")
        else:
            return_type = "any"

        self.context_index = context_index
        return {
            "params": params,
            "var_args": var_args,
            "var_kwargs": var_kwargs,
            "return_type": return_type,
            "context": context_index != -1,
        }

    def __call__(self, *args: object, **kwargs: object) -> object:
        return self.__function__(*args, **kwargs)

    def __repr__(self) -> str:
        return f"Plugin({self.get_full_name()})"


@stable_api
class PluginMeta(type):
    """Keeps the registered plugins by full name (a later plugin of the same name replaces the earlier one in its place)."""

    __functions: dict[str, PluginRegistration] = {}

    @classmethod
    def add_function(cls, plugin: PluginRegistration) -> None:
        cls.__functions[plugin.get_full_name()] = plugin

    @classmethod
    def get_functions(cls) -> dict[str, PluginRegistration]:
        return dict(cls.__functions)

    @classmethod
    def clear(cls, inmanta_module: Optional[str] = None) -> None:
        if inmanta_module is None:
            cls.__functions = {}
            return
        top = f"{const.PLUGINS_PACKAGE}.{inmanta_module}"
        cls.__functions = {
            name: p
            for name, p in cls.__functions.items()
            if p.__module__ != top and not p.__module__.startswith(top + ".")
        }


Plugin = PluginRegistration


@typing.overload
def plugin(
    function: Optional[str] = None,
    commands: Optional[list[str]] = None,
    emits_statements: bool = False,
    allow_unknown: bool = False,
) -> Callable[[T_FUNC], T_FUNC]: ...


@typing.overload
def plugin(
    function: T_FUNC,
    commands: Optional[list[str]] = None,
    emits_statements: bool = False,
    allow_unknown: bool = False,
) -> T_FUNC: ...


@stable_api
def plugin(
    function: Union[T_FUNC, str, None] = None,
    commands: Optional[list[str]] = None,
    emits_statements: bool = False,
    allow_unknown: bool = False,
) -> Union[T_FUNC, Callable[[T_FUNC], T_FUNC]]:
    """
    Register a function as a plugin of the module it is defined in: ``@plugin``, ``@plugin("name")``,
    ``@plugin(allow_unknown=True)``. The function itself is returned unchanged.

    :param commands: commands that must be on $PATH when the plugin is called
    :param emits_statements: for plugins that add statements to the model (template engines)
    :param allow_unknown: the plugin is called even when an argument is unknown
    """

    def register(name: Optional[str]) -> Callable[[T_FUNC], T_FUNC]:
        def decorate(fnc: T_FUNC) -> T_FUNC:
            registration = PluginRegistration(
                fnc, name if name is not None else fnc.__name__, commands, emits_statements, allow_unknown
            )
            fnc.__plugin__ = registration  # type: ignore[attr-defined]
            PluginMeta.add_function(registration)
            return fnc

        return decorate

    if function is None:
        return register(None)
    if isinstance(function, str):
        return register(function)
    return register(None)(function)


@stable_api
def deprecated(
    function: Optional[Callable[..., object]] = None, *, replaced_by: Optional[str] = None, **kwargs: object
) -> Callable[..., object]:
    """Mark a plugin deprecated; put it above ``@plugin``: ``@deprecated(replaced_by="x")``."""

    def mark(fnc: Callable[..., object]) -> Callable[..., object]:
        registration = getattr(fnc, "__plugin__", None)
        if registration is None:
            raise Exception(
                f"Can not deprecate '{fnc.__name__}': The '@deprecated' decorator should be used in combination with the "
                f"'@plugin' decorator and should be placed at the top."
            )
        registration.deprecate_function(replaced_by)
        return fnc

    if function is not None:
        return mark(function)
    return mark


def allow_reference_values(instance: T) -> T:
    """References do not exist in inmanta-cpp's models: the value is returned as it is."""
    return instance
