"""
Read-only views of model values for plugin code.

A model value reaches Python in raw form (CONTRACT.md): ``None``, ``bool``, ``int``, ``float``,
``str``, the ``UNKNOWN`` marker, or an opaque handle of ``_inmanta_native`` for an entity instance, a
list or a dict. Plugin code never sees a handle: :meth:`DynamicProxy.return_value` wraps it in

- :class:`DynamicProxy` for an instance: ``proxy.attr`` reads the attribute through the compiler;
- :class:`SequenceProxy` for a list: ``len``, indexing, slicing, iteration, ``in``;
- :class:`DictProxy` for a dict: a read-only ``Mapping`` with string keys.

Reading an unknown value raises :class:`UnknownException`; a plugin that lets it escape returns an
unknown. Proxies print like the reference's (``@std::File 7f2a...``, ``@['a', 1]``) and refuse
writes. The same proxies also accept plain Python lists and dicts (of raw values), which is how a
slice of a model list, or a proxy that module code builds itself, is represented.
"""

from collections.abc import Iterator, Mapping, Sequence
from copy import copy
from typing import Any, Callable, Optional, Union

from inmanta import _native
from inmanta.ast import NotFoundException, RuntimeException, UnknownException  # noqa: F401
from inmanta.ast import UnsetException  # noqa: F401  (kept importable from here, as in the reference)
from inmanta.execute.util import NoneValue, Unknown
from inmanta.stable_api import stable_api
from inmanta.util import JSONSerializable

class AttributeNotFound(NotFoundException, AttributeError):
    """
    Older inmanta-core raised this for a missing attribute; inmanta-core 19 (and this package) raise a
    plain AttributeError. Kept so that module code importing the name still loads.
    """


# The exception class the compiler raises (see inmanta._host.configure_native) when an attribute does not exist.
_not_found_class: type = NotFoundException


# ---------------------------------------------------------------------------------------------------------------------
# Raw values
# ---------------------------------------------------------------------------------------------------------------------


def raw_kind(raw: object) -> Optional[str]:
    """``"instance"``, ``"list"`` or ``"dict"`` for a container value (handle or Python), else None."""
    if _native.is_handle(raw):
        return _native.get().kind(raw)
    if isinstance(raw, list):
        return "list"
    if isinstance(raw, dict):
        return "dict"
    return None


def _items(raw: object) -> list[object]:
    return raw if isinstance(raw, list) else list(_native.get().items(raw))  # type: ignore[arg-type]


def _keys(raw: object) -> list[str]:
    return list(raw.keys()) if isinstance(raw, dict) else list(_native.get().keys(raw))


def _get(raw: object, key: str) -> object:
    return raw[key] if isinstance(raw, dict) else _native.get().get(raw, key)


def _length(raw: object) -> int:
    return len(raw) if isinstance(raw, (list, dict)) else _native.get().length(raw)  # type: ignore[arg-type]


def raw_repr(raw: object) -> str:
    """The text the reference's ``repr`` gives the internal value behind a proxy."""
    if raw is None or isinstance(raw, NoneValue):
        return "null"
    if _native.is_unknown(raw):
        return repr(Unknown(None))
    if isinstance(raw, DynamicProxy):
        return raw_repr(raw._get_instance())
    kind = raw_kind(raw)
    if kind == "instance":
        return _native.get().display(raw)
    if kind == "list":
        return "[" + ", ".join(raw_repr(x) for x in _items(raw)) + "]"
    if kind == "dict":
        return "{" + ", ".join(f"{k!r}: {raw_repr(_get(raw, k))}" for k in _keys(raw)) + "}"
    return repr(raw)


class _InstanceKey:
    """Stands for an entity instance in comparisons: equal when it is the same instance."""

    __slots__ = ("identity",)

    def __init__(self, identity: object) -> None:
        self.identity = identity

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _InstanceKey) and other.identity == self.identity

    def __hash__(self) -> int:
        return hash(self.identity)


def _comparable(value: object) -> object:
    """Turn a value (raw, proxied or plain Python) into plain Python for ``==``."""
    if isinstance(value, DynamicProxy):
        value = value._get_instance()
    if value is None or isinstance(value, NoneValue):
        return None
    kind = raw_kind(value)
    if kind == "instance":
        return _InstanceKey(_native.get().identity(value))
    if kind == "list":
        return [_comparable(x) for x in _items(value)]
    if kind == "dict":
        return {k: _comparable(_get(value, k)) for k in _keys(value)}
    if isinstance(value, tuple):
        return tuple(_comparable(x) for x in value)
    return value


def _no_get_attribute(raw: object) -> AttributeError:
    """
    The reference asks a list or dict for ``get_attribute`` in a few places (attribute access on a
    list proxy, a bad index type); Python answers with this AttributeError there.
    """
    return AttributeError(f"'{raw_kind(raw) or type(raw).__name__}' object has no attribute 'get_attribute'")


# ---------------------------------------------------------------------------------------------------------------------
# Proxies
# ---------------------------------------------------------------------------------------------------------------------


class ProxyContext:
    """
    Where a proxied value lives, for error messages (``arg[0].attr``). Kept for code written against
    the reference; inmanta-cpp has no reference values, so the validation flags change nothing.
    """

    __slots__ = ("path", "validated", "allow_reference_values")

    def __init__(self, *, path: str, validated: bool = True, allow_reference_values: Optional[bool] = None) -> None:
        self.path = path
        self.validated = validated
        self.allow_reference_values = allow_reference_values

    def nested(self, *, relative_path: str) -> "ProxyContext":
        return ProxyContext(path=self.path + relative_path, validated=self.validated)

    def allow_references(self) -> "ProxyContext":
        return ProxyContext(path=self.path, validated=self.validated, allow_reference_values=True)

    def should_allow_references(self) -> bool:
        return True


class _ExportContext:
    """``with exportcontext:`` marks code run for the export (no effect in inmanta-cpp)."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *args: object) -> None:
        return None


exportcontext = _ExportContext()


def get_inmanta_type_for_dataclass(for_type: type) -> Optional[object]:
    return getattr(for_type, "_paired_inmanta_entity", None)


@stable_api
class DynamicProxy:
    """A read-only view of an entity instance of the model."""

    def __init__(self, instance: object, *, context: Optional[ProxyContext] = None) -> None:
        object.__setattr__(self, "__instance", instance)
        object.__setattr__(self, "__context", context)

    def _get_instance(self) -> Any:
        return object.__getattribute__(self, "__instance")

    def _get_context(self) -> ProxyContext:
        context = object.__getattribute__(self, "__context")
        if context is None:
            context = ProxyContext(path=object.__repr__(self))
        return context

    def _allow_references(self) -> "DynamicProxy":
        return copy(self)

    # -- conversions between the model domain and the plugin domain ---------------------------------------------------

    @classmethod
    def unwrap(cls, item: object, *, dynamic_context: object = None) -> object:
        """Plugin domain -> model domain: proxies become the values behind them, ``None`` the model's null."""
        if item is None:
            return NoneValue()
        if isinstance(item, DynamicProxy):
            return item._get_instance()
        if isinstance(item, list):
            return [cls.unwrap(x) for x in item]
        if isinstance(item, dict):
            result = {}
            for key, value in item.items():
                if not isinstance(key, str):
                    raise RuntimeException(
                        None, f"dict keys should be strings, got {key!r} of type {type(key)} with dict value {value!r}"
                    )
                result[key] = cls.unwrap(value)
            return result
        return item

    @classmethod
    def return_value(
        cls, value: object, *, context: Optional[ProxyContext] = None
    ) -> Union[None, str, tuple, int, float, bool, "DynamicProxy"]:
        """Model domain -> plugin domain: containers and instances are proxied, an unknown raises."""
        if value is None or isinstance(value, NoneValue):
            return None
        if isinstance(value, Unknown):
            raise UnknownException(value)
        if _native.is_unknown(value):
            raise UnknownException(Unknown(None))
        if isinstance(value, (str, tuple, int, float, bool)):
            return value
        if isinstance(value, DynamicProxy):
            return value
        if _native.is_handle(value):
            kind = _native.get().kind(value)
            if kind == "list":
                return SequenceProxy(value, context=context)
            if kind == "dict":
                return DictProxy(value, context=context)
            return DynamicProxy(value, context=context)
        if isinstance(value, dict):
            return DictProxy(value, context=context)
        if hasattr(value, "__len__"):
            return SequenceProxy(value, context=context)  # type: ignore[arg-type]
        if hasattr(value, "__call__"):
            return CallProxy(value, context=context)  # type: ignore[arg-type]
        return DynamicProxy(value, context=context)

    def _return_value(self, value: object, *, relative_path: str) -> object:
        context = object.__getattribute__(self, "__context")
        return DynamicProxy.return_value(value, context=context.nested(relative_path=relative_path) if context else None)

    # -- instance behaviour --------------------------------------------------------------------------------------------

    def __getattr__(self, attribute: str) -> object:
        instance = self._get_instance()
        if attribute.startswith("__") and attribute.endswith("__"):
            # protocol lookups (copy, pickle, jinja's __html__, ...): never attributes of the model
            raise AttributeError(None, attribute)
        if _native.is_handle(instance):
            if _native.get().kind(instance) != "instance":
                raise _no_get_attribute(instance)
            try:
                value = _native.get().attribute(instance, attribute)
            except _not_found_class:
                # as the reference: hasattr(proxy, "x") works, the error carries (None, name)
                raise AttributeError(None, attribute)
            return self._return_value(value, relative_path=f".{attribute}")
        if isinstance(instance, (list, dict)):
            raise _no_get_attribute(instance)
        try:
            value = instance.get_attribute(attribute).get_value()
        except NotFoundException as e:
            raise AttributeError(e.stmt, e.name)
        return self._return_value(value, relative_path=f".{attribute}")

    def __setattr__(self, attribute: str, value: object) -> None:
        raise Exception("Readonly object")

    def __delattr__(self, attribute: str) -> None:
        raise Exception("Readonly object")

    def _type(self) -> "Any":
        """The entity type of the instance (an :class:`inmanta.ast.entity.Entity`)."""
        from inmanta.ast.entity import Entity

        instance = self._get_instance()
        if _native.is_handle(instance):
            return Entity(_native.get().entity(instance))
        return instance.type

    def is_unknown(self) -> bool:
        return isinstance(self._get_instance(), Unknown)

    def __hash__(self) -> int:
        instance = self._get_instance()
        kind = raw_kind(instance)
        if kind == "instance":
            return hash(_native.get().identity(instance))
        if kind is not None:
            raise TypeError(f"unhashable type: '{kind}'")
        return hash(instance)

    def __eq__(self, other: object) -> bool:
        return _comparable(self) == _comparable(other)

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __lt__(self, other: object) -> bool:
        return _comparable(self) < _comparable(other)  # type: ignore[operator]

    def __repr__(self) -> str:
        return "@" + raw_repr(self._get_instance())

    def __str__(self) -> str:
        return self.__repr__()


class SequenceProxy(DynamicProxy, JSONSerializable):
    """A read-only view of a list of the model."""

    def __init__(self, iterator: Sequence[object], *, context: Optional[ProxyContext] = None) -> None:
        DynamicProxy.__init__(self, iterator, context=context)

    def _elements(self) -> list[object]:
        instance = self._get_instance()
        if isinstance(instance, list):
            return instance
        if _native.is_handle(instance):
            # a model list does not change while a plugin runs: read it once per proxy
            try:
                return object.__getattribute__(self, "__elements")
            except AttributeError:
                elements = _items(instance)
                object.__setattr__(self, "__elements", elements)
                return elements
        return instance  # any other Python sequence

    def __getitem__(self, key: Union[int, slice]) -> object:
        if isinstance(key, str):
            raise _no_get_attribute(self._get_instance())
        return self._return_value(self._elements()[key], relative_path=f"[{key!r}]")

    def __iter__(self) -> "IteratorProxy":
        return IteratorProxy(iter(self._elements()), context=object.__getattribute__(self, "__context"), sequence=True)

    def __len__(self) -> int:
        instance = self._get_instance()
        if _native.is_handle(instance):
            return _length(instance)
        return len(instance)

    def json_serialization_step(self) -> list[object]:
        return [x for x in self]


class DictProxy(DynamicProxy, Mapping[str, object], JSONSerializable):
    """A read-only view of a dict of the model (string keys)."""

    def __init__(self, mydict: Any, *, context: Optional[ProxyContext] = None) -> None:
        DynamicProxy.__init__(self, mydict, context=context)

    def __getitem__(self, key: str) -> object:
        instance = self._get_instance()
        if not isinstance(key, str):
            raise _no_get_attribute(instance)
        return self._return_value(_get(instance, key), relative_path=f"[{key!r}]")

    def __iter__(self) -> "IteratorProxy":
        return IteratorProxy(
            iter(_keys(self._get_instance())), context=object.__getattribute__(self, "__context"), sequence=False
        )

    def __len__(self) -> int:
        return _length(self._get_instance())

    def json_serialization_step(self) -> dict[str, object]:
        return {k: v for k, v in self.items()}


class IteratorProxy(DynamicProxy, Iterator[object]):
    """
    Iterates over a proxied list or dict. Each element is converted on its own, so code that catches
    the UnknownException of one element can go on with the next.
    """

    def __init__(self, iterator: Iterator[object], *, context: Optional[ProxyContext] = None, sequence: bool = False) -> None:
        DynamicProxy.__init__(self, enumerate(iterator), context=context)
        object.__setattr__(self, "__sequence", sequence)

    def __iter__(self) -> "IteratorProxy":
        return self

    def __next__(self) -> object:
        index, value = next(self._get_instance())
        sequence = object.__getattribute__(self, "__sequence")
        return self._return_value(value, relative_path=f"[{index}]" if sequence else "")

    def __repr__(self) -> str:
        return object.__repr__(self)


class CallProxy(DynamicProxy):
    """A proxy of a callable value."""

    def __init__(self, instance: Callable[..., object], *, context: Optional[ProxyContext] = None) -> None:
        DynamicProxy.__init__(self, instance, context=context)

    def __call__(self, *args: object, **kwargs: object) -> object:
        return self._get_instance()(*args, **kwargs)
