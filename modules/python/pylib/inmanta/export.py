"""
Export hooks of modules: ``@dependency_manager`` (adds ``requires`` between resources after they are
built), ``@export("name", "ns::Entity", ...)`` (an export function run with ``inmanta export -e name``
or the ``config.export`` option), and :class:`Exporter`, the object those functions receive.

The export itself is done by the C++ exporter; ``inmanta._host`` runs these functions for it.
"""

import logging
import uuid
from collections.abc import Mapping, Sequence
from typing import Any, Callable, Iterator, Optional, Union

from inmanta import _native, const  # noqa: F401
from inmanta.config import Config
from inmanta.execute.proxy import DynamicProxy
from inmanta.resources import Id, Resource
from inmanta.stable_api import stable_api
from inmanta.util import hash_file

LOGGER = logging.getLogger(__name__)


def upload(data: bytes) -> str:
    """Queue ``data`` for upload with the export; returns its SHA-1 hex digest (the server's file id)."""
    digest = hash_file(data)
    _native.get().upload_file(digest, data)
    return digest


class _UnknownParameters(list):  # type: ignore[type-arg]
    """
    ``unknown_parameters``: plugins append ``{"resource": id, "parameter": name, "source": "fact"}`` for
    each value they could not know; each entry is also handed to the compiler, which reports it with
    the version it exports.
    """

    def append(self, item: Any) -> None:
        list.append(self, item)
        if isinstance(item, Mapping):
            try:
                _native.get().report_unknown(
                    str(item.get("resource", "")), str(item.get("parameter", "")), str(item.get("source", "fact"))
                )
            except RuntimeError:
                pass

    def extend(self, items: Any) -> None:
        for item in items:
            self.append(item)


unknown_parameters: list[dict[str, str]] = _UnknownParameters()


class DependencyCycleException(Exception):
    def __init__(self, start: Resource) -> None:
        Exception.__init__(self)
        self.start = start
        self.cycle = [start]
        self.running = True

    def add_to_cycle(self, node: Resource) -> None:
        if node == self.start:
            self.running = False
        elif self.running:
            self.cycle.append(node)

    def __str__(self) -> str:
        return "Cycle in dependencies: %s" % self.cycle


class ModelTypes(Mapping[str, Any]):
    """
    The ``types`` a dependency manager or an export hook receives: entity name -> entity type
    (:class:`inmanta.ast.entity.Entity`). Any entity of the model can be looked up by name;
    iterating gives the entities this export knows of (those of its resources and their parents; for
    an export hook, every entity of the model, as the reference's exporter.types).
    """

    def __init__(self, known: Sequence[str] = (), every_entity: bool = False) -> None:
        self._known: dict[str, Any] = {}
        for name in known:
            self._add(name)
        if every_entity:
            for name in _native.entities():
                self._add(name)

    def _add(self, name: str) -> Any:
        from inmanta.ast.entity import Entity

        if name not in self._known:
            entity = Entity.named(name)
            self._known[name] = entity
            try:
                for parent in entity.get_all_parent_names():
                    self._known.setdefault(parent, Entity.named(parent))
            except Exception:
                pass
        return self._known[name]

    def __getitem__(self, name: str) -> Any:
        if name in self._known:
            return self._known[name]
        if not _native.entity_exists(name):
            raise KeyError(name)
        return self._add(name)

    def __contains__(self, name: object) -> bool:
        try:
            self[name]  # type: ignore[index]
            return True
        except KeyError:
            return False

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._known))

    def __len__(self) -> int:
        return len(self._known)


ModelDict = Mapping[str, Any]
ResourceDict = dict[Id, Resource]
ProxiedType = dict[str, Sequence[Union[str, tuple, int, float, bool, "DynamicProxy"]]]


@stable_api
class Exporter:
    """What export functions and resource getters receive as ``exporter``."""

    __export_functions: dict[str, tuple[Sequence[str], Callable[..., None]]] = {}
    __dep_manager: list[Callable[[ModelDict, ResourceDict], None]] = []

    def __init__(self, options: object = None) -> None:
        self.options = options
        self.types: Optional[ModelDict] = ModelTypes()
        self.scopes = None
        self.failed = False
        self._resources: ResourceDict = {}
        self._version = 0

    @classmethod
    def clear(cls) -> None:
        cls.__export_functions = {}
        cls.__dep_manager = []

    @classmethod
    def add(cls, name: str, types: Sequence[str], function: Callable[..., None]) -> None:
        cls.__export_functions[name] = (types, function)

    @classmethod
    def add_dependency_manager(cls, function: Callable[[ModelDict, ResourceDict], None]) -> None:
        cls.__dep_manager.append(function)

    @classmethod
    def get_export_functions(cls) -> dict[str, tuple[Sequence[str], Callable[..., None]]]:
        return dict(cls.__export_functions)

    @classmethod
    def get_dependency_managers(cls) -> list[Callable[[ModelDict, ResourceDict], None]]:
        return list(cls.__dep_manager)

    def upload_file(self, content: Union[str, bytes]) -> str:
        """Queue file content for upload to the server; returns its hash (what a resource field refers to)."""
        data = content if isinstance(content, bytes) else content.encode("utf-8")
        return upload(data)

    def get_environment_id(self) -> str:
        return str(Config.get("config", "environment", None))

    def _get_env_id(self) -> uuid.UUID:
        env = Config.get("config", "environment", None)
        if env is None:
            raise Exception("The environment for this model should be set!")
        return env  # type: ignore[return-value]

    def get_version(self, *args: object, **kwargs: object) -> int:
        return self._version


@stable_api
class dependency_manager:  # noqa: N801
    """``@dependency_manager``: a function ``(model_types, resources_by_id)`` that adds ``requires``."""

    def __init__(self, function: Callable[[ModelDict, ResourceDict], None]) -> None:
        self.function = function
        Exporter.add_dependency_manager(function)

    def __call__(self, *args: object, **kwargs: object) -> None:
        self.function(*args, **kwargs)  # type: ignore[arg-type]


class code_manager:  # noqa: N801
    """``@code_manager``: accepted and ignored, as in the reference."""

    def __init__(self, function: Callable[[], None]) -> None:
        self.function = function


class export:  # noqa: N801
    """``@export("name", "ns::Entity", ...)``: an export function, given the instances of these entities."""

    def __init__(self, name: str, *args: str) -> None:
        self.name = name
        self.types = args

    def __call__(self, function: Callable[..., None]) -> Callable[..., None]:
        Exporter.add(self.name, self.types, function)
        return function
