"""
The functions the C++ compiler calls (CONTRACT.md, "inmanta._host"): load the modules' Python code,
run plugins, compute the fields and ids of resources, run dependency managers and export hooks.

Values cross in raw form (CONTRACT.md). Nothing here catches ``BaseException``: when a plugin reads a
value that is not ready, the compiler suspends the call by unwinding through Python, and that must
reach it untouched.
"""

import importlib
import importlib.machinery
import importlib.util
import logging
import os
import sys
import traceback
import types
from collections.abc import Callable, Sequence
from typing import Any, Optional

from inmanta import _native, const
from inmanta.ast import CompilerException, NotFoundException, OptionalValueException, PluginException, RuntimeException
from inmanta.ast import UnknownException
from inmanta.execute import proxy
from inmanta.execute.proxy import DynamicProxy
from inmanta.execute.util import NoneValue, Unknown

LOGGER = logging.getLogger("inmanta.plugins")

PLUGINS_PACKAGE = const.PLUGINS_PACKAGE


class LoadError(Exception):
    """
    A module's Python code failed to load. ``message`` is the reference's text, ``file`` and ``line``
    where it is reported (line 0: no line of that file is on the traceback), ``kind`` the reference's
    exception class (``CompilerException``, or ``InvalidModuleException`` for a plugins/ folder that
    is not a package).
    """

    def __init__(self, message: str, file: str, line: int, kind: str = "CompilerException") -> None:
        Exception.__init__(self, message, file, line)
        self.message = message
        self.file = file
        self.line = line
        self.kind = kind

    def __str__(self) -> str:
        return self.message


# ---------------------------------------------------------------------------------------------------------------------
# The exception classes the compiler raises while plugin code reads the model
# ---------------------------------------------------------------------------------------------------------------------


class NativeNotFound(NotFoundException):
    """Raised by ``_inmanta_native`` for an attribute or entity that does not exist: ``NativeNotFound(message)``."""

    reported_kind = "NotFoundException"

    def __init__(self, message: str = "", name: str = "") -> None:
        RuntimeException.__init__(self, None, message)
        self.name = name


class NativeOptionalValue(OptionalValueException):
    """Raised by ``_inmanta_native`` for an optional relation without value: ``NativeOptionalValue(message)``."""

    reported_kind = "OptionalValueException"

    def __init__(self, message: str = "") -> None:
        RuntimeException.__init__(self, None, message)
        self.instance = None
        self.attribute = None


def native_not_found_class() -> type:
    return NativeNotFound


_configured = False


def _configure_native() -> None:
    global _configured
    _native.refresh()
    if not _configured:
        _native.get().configure(not_found=NativeNotFound, optional_value=NativeOptionalValue)
        proxy._not_found_class = NativeNotFound
        _native.not_found_class = NativeNotFound
        _install_logging()
        from inmanta import warnings as inmanta_warnings

        inmanta_warnings.install()
        _configured = True


# ---------------------------------------------------------------------------------------------------------------------
# Logging: records of inmanta_plugins.* and inmanta.* go to the compiler's log
# ---------------------------------------------------------------------------------------------------------------------


class _NativeLogHandler(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()
            if record.exc_info:
                message += "\n" + "".join(traceback.format_exception(*record.exc_info)).rstrip("\n")
        except Exception:
            message = str(record.msg)
        _native.get().log(record.name, record.levelno, message)


_LOG_HANDLER = _NativeLogHandler()


def _install_logging() -> None:
    for name in (PLUGINS_PACKAGE, "inmanta", "py.warnings"):
        logger = logging.getLogger(name)
        if _LOG_HANDLER not in logger.handlers:
            logger.addHandler(_LOG_HANDLER)
        logger.setLevel(logging.DEBUG)
        logger.propagate = False


# ---------------------------------------------------------------------------------------------------------------------
# Importing the modules' plugins/ folders as inmanta_plugins.<module>
# ---------------------------------------------------------------------------------------------------------------------


_STD_COMPAT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_std_compat.py")


class _PluginFinder:  # a meta path finder (importlib.abc costs 35 ms to import)
    """
    ``inmanta_plugins`` is a namespace package (also spanning the ``inmanta_plugins`` folders of the
    Python path, where installed v2 modules live); ``inmanta_plugins.<name>`` of a loaded module is its
    ``plugins/`` folder; ``inmanta_plugins.std`` is ``_std_compat`` (std is part of the compiler).
    """

    def __init__(self) -> None:
        self.folders: dict[str, str] = {}

    def find_spec(
        self, fullname: str, path: Optional[Sequence[str]] = None, target: Optional[types.ModuleType] = None
    ) -> Optional[importlib.machinery.ModuleSpec]:
        if fullname == PLUGINS_PACKAGE:
            spec = importlib.machinery.ModuleSpec(PLUGINS_PACKAGE, None, is_package=True)
            spec.submodule_search_locations = [
                os.path.join(entry, PLUGINS_PACKAGE)
                for entry in sys.path
                if isinstance(entry, str) and entry and os.path.isdir(os.path.join(entry, PLUGINS_PACKAGE))
            ]
            return spec
        parts = fullname.split(".")
        if len(parts) != 2 or parts[0] != PLUGINS_PACKAGE:
            return None
        if parts[1] == "std":
            # std is part of the compiler: its Python (on the module path of real projects) is never loaded
            return importlib.util.spec_from_file_location(fullname, _STD_COMPAT)
        folder = self.folders.get(parts[1])
        if folder is not None:
            return importlib.util.spec_from_file_location(
                fullname, os.path.join(folder, "__init__.py"), submodule_search_locations=[folder]
            )
        return None


_FINDER = _PluginFinder()
_loaded: list[tuple[str, str]] = []


def loaded_module_names() -> list[str]:
    return [name for name, _ in _loaded]


def _python_files(plugin_dir: str) -> list[str]:
    """Every .py file under ``plugin_dir`` (not in __pycache__, nor in model/, files/, templates/), parents first."""
    skipped = tuple(os.path.join(plugin_dir, d) for d in ("model", "files", "templates"))
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(plugin_dir, topdown=True):
        if dirpath.startswith(skipped):
            dirnames[:] = []
            continue
        dirnames.sort()
        if "__pycache__" in dirpath.split(os.sep):
            continue
        names = sorted(f for f in filenames if f.endswith(".py"))
        if "__init__.py" in names:
            names.remove("__init__.py")
            names.insert(0, "__init__.py")
        found.extend(os.path.join(dirpath, name) for name in names)
    return found


def _module_name_for(module: str, plugin_dir: str, file: str) -> str:
    relative = os.path.relpath(file, plugin_dir)
    parts = relative[: -len(".py")].split(os.sep)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join([PLUGINS_PACKAGE, module] + parts)


def _type_name(exception: BaseException) -> str:
    """The class name as Python's traceback prints it (``ValueError``, ``yaml.scanner.ScannerError``)."""
    cls = type(exception)
    module = cls.__module__
    return cls.__qualname__ if module in (None, "builtins", "__main__") else f"{module}.{cls.__qualname__}"


def _imported(name: str) -> Optional[types.ModuleType]:
    """The module when some code imported it already: the registries of the API modules no code
    imported are empty, and importing them only to find that out costs a compile time (the handler
    API alone takes a fifth of Python's start)."""
    return sys.modules.get(name)


def _reset() -> None:
    for name in [n for n in sys.modules if n == PLUGINS_PACKAGE or n.startswith(PLUGINS_PACKAGE + ".")]:
        del sys.modules[name]
    if plugins := _imported("inmanta.plugins"):
        plugins.PluginMeta.clear()
    if resources := _imported("inmanta.resources"):
        resources.resource.reset()
    if export := _imported("inmanta.export"):
        export.Exporter.clear()
    if handler := _imported("inmanta.agent.handler"):
        handler.Commander.reset()
    _handlers.clear()
    importlib.invalidate_caches()


def load(modules: Sequence[tuple[str, str]], available: Sequence[tuple[str, str]] = ()) -> dict[str, Any]:
    """
    Import the Python code of ``modules`` (``(name, folder)`` in load order) and return the registry
    of CONTRACT.md. Raises :class:`LoadError` on the first file that fails to import.

    ``available``: other modules of the module path (not imported by the model) whose Python code
    module code may still import (``from inmanta_plugins.other import x``), as the reference's
    module finder allows; they are not loaded unless imported.
    """
    _configure_native()
    _reset()
    _loaded[:] = [(str(name), str(folder)) for name, folder in modules]
    _FINDER.folders = {str(name): os.path.join(str(folder), "plugins") for name, folder in available}
    _FINDER.folders.update({name: os.path.join(folder, "plugins") for name, folder in _loaded})
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)

    for name, folder in _loaded:
        if name == "std":
            continue  # built into the compiler; inmanta_plugins.std is _std_compat
        plugin_dir = os.path.join(folder, "plugins")
        if not os.path.isfile(os.path.join(plugin_dir, "__init__.py")):
            raise LoadError(
                f"Directory {plugin_dir} should be a valid python package with a __init__.py file",
                plugin_dir,
                0,
                "InvalidModuleException",
            )
        for file in _python_files(plugin_dir):
            fq_name = _module_name_for(name, plugin_dir, file)
            LOGGER.log(const.LOG_LEVEL_TRACE, "Loading Python module %s", fq_name)
            try:
                importlib.import_module(fq_name)
            except Exception as e:
                line = 0
                for frame in reversed(traceback.extract_tb(e.__traceback__)):
                    if frame.filename == file:
                        line = frame.lineno or 0
                        break
                raise LoadError(
                    f"Unable to load all plug-ins for module {name}:"
                    f"\n\t{_type_name(e)} while loading plugin module {fq_name}: {e}",
                    file,
                    line,
                )
    return registry()


# ---------------------------------------------------------------------------------------------------------------------
# The registry
# ---------------------------------------------------------------------------------------------------------------------

_handlers: list[dict[str, Any]] = []


def registry() -> dict[str, Any]:
    """What the loaded code registered (CONTRACT.md)."""
    plugins_module = _imported("inmanta.plugins")
    plugins = (
        [registration.describe() for registration in plugins_module.PluginMeta.get_functions().values()]
        if plugins_module
        else []
    )

    resources = []
    resources_module = _imported("inmanta.resources")
    registered = resources_module.resource._resources.items() if resources_module else []
    for entity, (cls, options) in registered:
        id_attribute = options["name"]
        resources.append(
            {
                "entity": entity,
                "agent": options["agent"],
                "id_attribute": id_attribute,
                "fields": list(cls.fields),
                "class": cls,
                "id_mapped": hasattr(cls, "get_" + id_attribute)
                or (hasattr(cls, "map") and id_attribute in getattr(cls, "map")),
            }
        )

    export = _imported("inmanta.export")
    export_functions = export.Exporter.get_export_functions() if export else {}
    handler = _imported("inmanta.agent.handler")
    handlers = (
        [
            {"entity": entity, "name": handler.Commander.get_provider_name(entity), "class": cls}
            for entity, cls in handler.Commander.get_providers()
        ]
        if handler
        else []
    )
    return {
        "plugins": plugins,
        "resources": resources,
        "dependency_managers": export.Exporter.get_dependency_managers() if export else [],
        "export_hooks": {name: (function, list(types_)) for name, (types_, function) in export_functions.items()},
        "handlers": handlers,
    }


# ---------------------------------------------------------------------------------------------------------------------
# Raw values <-> Python values
# ---------------------------------------------------------------------------------------------------------------------


def to_raw(value: object) -> object:
    """A Python value back to raw form: proxies to their handles, ``NoneValue`` to None, ``Unknown`` to UNKNOWN."""
    if value is None or isinstance(value, NoneValue):
        return None
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, str):
        return value if type(value) is str else str.__str__(value)
    if isinstance(value, int):
        return value if type(value) is int else int(value)
    if isinstance(value, float):
        return value if type(value) is float else float(value)
    if isinstance(value, DynamicProxy):
        return to_raw(value._get_instance())
    if isinstance(value, Unknown):
        return _native.get().UNKNOWN
    if isinstance(value, list):
        return [to_raw(item) for item in value]
    if isinstance(value, tuple):
        return tuple(to_raw(item) for item in value)
    if isinstance(value, dict):
        result = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise RuntimeException(
                    None, f"dict keys should be strings, got {key!r} of type {type(key)} with dict value {item!r}"
                )
            result[key if type(key) is str else str.__str__(key)] = to_raw(item)
        return result
    # handles, UNKNOWN, and anything the compiler will refuse with a TypeError
    return value


def default_to_raw(value: object) -> object:
    """
    A parameter default for the registry: its raw form when it has one, else the Python object itself
    (the compiler hands such a default back to the plugin unchanged).
    """
    try:
        raw = to_raw(value)
    except RuntimeException:
        return value

    def plain(item: object) -> bool:
        if item is None or isinstance(item, (bool, int, float, str)) or _native.is_unknown(item):
            return True
        if isinstance(item, (list, tuple)):
            return all(plain(x) for x in item)
        if isinstance(item, dict):
            return all(plain(x) for x in item.values())
        return False

    return raw if plain(raw) else value


def _argument(raw: object) -> object:
    """A raw argument as the plugin sees it: proxies for containers and instances, Unknown for UNKNOWN."""
    if _native.is_unknown(raw):
        return Unknown(None)
    if raw is None:
        return None
    return DynamicProxy.return_value(raw)


def to_plain(raw: object) -> object:
    """A raw value as plain Python data (a resource field for a dependency manager)."""
    if raw is None:
        return None
    if _native.is_unknown(raw):
        return Unknown(None)
    if _native.is_handle(raw):
        kind = _native.get().kind(raw)
        if kind == "list":
            return [to_plain(x) for x in _native.get().items(raw)]
        if kind == "dict":
            return {k: to_plain(_native.get().get(raw, k)) for k in _native.get().keys(raw)}
        return DynamicProxy.return_value(raw)
    if isinstance(raw, (list, tuple)):
        return [to_plain(x) for x in raw]
    if isinstance(raw, dict):
        return {k: to_plain(v) for k, v in raw.items()}
    return raw


def _traceback_text(exception: BaseException) -> str:
    """The traceback of an exception raised by module code, without this module's own frame."""
    tb = exception.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename == __file__:
        tb = tb.tb_next
    return "".join(traceback.format_exception(type(exception), exception, tb))


def _kind(exception: CompilerException) -> str:
    """The class name the compiler reports (the native classes stand for the reference's)."""
    return type(exception).__dict__.get("reported_kind", type(exception).__name__)


def _location(exception: CompilerException) -> tuple[Optional[str], Optional[int]]:
    location = exception.get_location()
    if location is None:
        return None, None
    return location.file, location.lnr


def _plugin_message(exception: PluginException) -> str:
    message = getattr(exception, "message", None)
    return message if isinstance(message, str) else str(exception)


# ---------------------------------------------------------------------------------------------------------------------
# Plugin calls
# ---------------------------------------------------------------------------------------------------------------------


def call(function: Any, args: Sequence[object], kwargs: dict[str, object]) -> tuple[object, ...]:
    """Run a plugin (CONTRACT.md): ``function`` is the ``"function"`` of its registry entry."""
    from inmanta.plugins import Context

    arguments = [_argument(value) for value in args]
    keywords = {name: _argument(value) for name, value in kwargs.items()}
    if function.context_index != -1:
        arguments.insert(function.context_index, Context(function))
    try:
        function.check_requirements()
        result = function.function(*arguments, **keywords)
        return ("ok", to_raw(result))
    except UnknownException:
        return ("unknown",)
    except PluginException as e:
        return ("plugin", _plugin_message(e))
    except RuntimeException as e:
        file, line = _location(e)
        return ("compiler", _kind(e), e.get_message(), file, line)
    except Exception as e:
        return ("error", _type_name(e), str(e), _traceback_text(e))


# ---------------------------------------------------------------------------------------------------------------------
# Export
# ---------------------------------------------------------------------------------------------------------------------

_exporter: Optional[Any] = None


def _get_exporter() -> Any:
    global _exporter
    if _exporter is None:
        from inmanta.export import Exporter

        _exporter = Exporter()
    return _exporter


def _field_error(field: Optional[str], e: Exception) -> tuple[object, ...]:
    if isinstance(e, PluginException):
        return ("plugin", field, _type_name(e), _plugin_message(e), _traceback_text(e))
    if isinstance(e, CompilerException):
        file, line = _location(e)
        return ("compiler", field, _kind(e), e.get_message(), file, line)
    return ("error", field, _type_name(e), str(e), _traceback_text(e))


_IGNORE = object()
_UNKNOWN_FIELD = object()


def _field_value(resource_class: Any, exporter: Any, instance: DynamicProxy, field: str, plain: bool) -> object:
    """One field as the reference's map_field computes it; Unknown -> _UNKNOWN_FIELD, ignore -> _IGNORE."""
    from inmanta.resources import IgnoreResourceException, _plain_field_value

    try:
        value = resource_class.field_value(exporter, field, instance)
        return _plain_field_value(value, field) if plain else value
    except IgnoreResourceException:
        return _IGNORE
    except UnknownException:
        return _UNKNOWN_FIELD


def export_fields(resource_class: Any, handle: object) -> tuple[object, ...]:
    """The fields of one resource (CONTRACT.md)."""
    from inmanta.resources import ResourceException

    try:
        resource_class.validate()
    except ResourceException as e:
        return _field_error(None, e)
    instance = DynamicProxy.return_value(handle)
    exporter = _get_exporter()
    fields: dict[str, object] = {}
    for field in resource_class.fields:
        try:
            value = _field_value(resource_class, exporter, instance, field, plain=True)  # type: ignore[arg-type]
            if value is _IGNORE:
                return ("ignore",)
            fields[field] = _native.get().UNKNOWN if value is _UNKNOWN_FIELD else to_raw(value)
        except Exception as e:
            return _field_error(field, e)
    return ("ok", fields)


def export_id(entity: str, handle: object) -> tuple[object, ...]:
    """The id of one resource of a Python resource type (CONTRACT.md)."""
    from inmanta.resources import Id, ResourceException, resource

    resource_class, options = resource.get_class(entity)
    if resource_class is None or options is None:
        return ("error", None, "TypeError", "No resource class registered for entity %s" % entity, "")
    instance = DynamicProxy.return_value(handle)
    agent_path = options["agent"]
    agent_value: Any = instance
    for step in agent_path.split("."):
        try:
            if isinstance(agent_value, list):
                agent_value = agent_value[0]
            agent_value = getattr(agent_value, step)
        except UnknownException:
            return ("unknown",)
        except ResourceException as e:
            return _field_error(None, e)
        except Exception:
            return (
                "error",
                None,
                "Exception",
                "Unable to get the name of agent %s belongs to. In path %s, '%s' does not exist"
                % (instance, agent_path, step),
                "",
            )
    id_attribute = options["name"]
    try:
        value = _field_value(resource_class, None, instance, id_attribute, plain=False)  # type: ignore[arg-type]
    except Exception as e:
        return _field_error(id_attribute, e)
    if value is _IGNORE:
        return ("ignore",)
    if value is _UNKNOWN_FIELD:
        return ("unknown",)
    if not isinstance(agent_value, str):
        return (
            "error",
            None,
            "inmanta.resources.ResourceException",
            f"The agent attribute should lead to a string, got {agent_value} of type {type(agent_value)}",
            "",
        )
    try:
        resource_id = Id(entity, str(agent_value), id_attribute, str(value))
    except ValueError as e:
        return _field_error(None, e)
    return ("ok", resource_id.resource_str(), resource_id.agent_name, resource_id.attribute_value)


_generic_classes: dict[str, type] = {}


def _class_for(entity: str, field_names: Sequence[str]) -> type:
    """A Resource class for a resource type the compiler exports itself (std's): its fields are its keys."""
    from inmanta.resources import Resource

    cls = _generic_classes.get(entity)
    if cls is None or not set(field_names) <= set(cls.fields):  # type: ignore[attr-defined]
        cls = type(entity.rsplit("::", 1)[-1], (Resource,), {"fields": tuple(field_names), "__module__": "inmanta.resources"})
        _generic_classes[entity] = cls
    return cls


def dependency_managers(managers: Sequence[Callable[..., None]], resources: Sequence[dict[str, Any]]) -> dict[str, list[str]]:
    """Run the dependency managers over the exported resources (CONTRACT.md)."""
    from inmanta.export import ModelTypes
    from inmanta.resources import Id, Resource

    by_id: dict[Any, Resource] = {}
    initial: dict[Any, set[str]] = {}
    for description in resources:
        resource_id = Id.parse_id(description["id"]).copy(version=0)
        fields = description.get("fields") or {}
        cls = description.get("class") or _class_for(description["entity"], list(fields.keys()))
        obj = cls.__new__(cls)
        Resource.__init__(obj, resource_id)
        for name, raw in fields.items():
            setattr(obj, name, to_plain(raw))
        obj.requires = {Id.parse_id(r).copy(version=0) for r in description.get("requires") or []}
        handle = description.get("handle")
        obj.model = DynamicProxy.return_value(handle) if handle is not None else None  # type: ignore[assignment]
        by_id[resource_id] = obj
        initial[resource_id] = {str(r) for r in obj.requires}

    model_types = ModelTypes(sorted({d["entity"] for d in resources}))
    for manager in managers:
        try:
            manager(model_types, by_id)
        except UnknownException:
            LOGGER.debug("Dependency manager %s caused an unknown exception", manager)

    def cleanup(requirement: object) -> Any:
        if isinstance(requirement, str):
            return Id.parse_id(requirement).copy(version=0)
        if isinstance(requirement, Resource):
            return requirement.id.copy(version=0)
        if isinstance(requirement, Id):
            return requirement.copy(version=0)
        raise Exception(
            f"A dependency manager inserted the object {requirement!r} of type {type(requirement)} "
            "into a requires relation. However, only string, Resource or Id are allowable types "
        )

    changed: dict[str, list[str]] = {}
    for resource_id, obj in by_id.items():
        obj.requires = {cleanup(r) for r in obj.requires}
        obj.resource_requires = {by_id[r] for r in obj.requires}
        now = {str(r) for r in obj.requires}
        if now != initial[resource_id]:
            changed[str(resource_id)] = sorted(now)
    return changed


def export_hook(function: Callable[..., None], types: Sequence[str]) -> None:
    """Run an ``@export`` function, given the instances of the entities it names (CONTRACT.md)."""
    from inmanta.export import Exporter, ModelTypes

    exporter = Exporter()
    exporter.types = ModelTypes(every_entity=True)  # as the reference's: every type of the model
    if not types:
        function(exporter)
        return
    proxies: dict[str, list[object]] = {}
    for entity in types:
        try:
            handles = list(_native.get().instances_of(entity))
        except NativeNotFound:
            handles = []
        proxies[entity] = [DynamicProxy.return_value(h) for h in handles]
    function(exporter, types=proxies)


# ---------------------------------------------------------------------------------------------------------------------
# Handlers (the embedded deploy's agent runs the modules' @provider classes)
# ---------------------------------------------------------------------------------------------------------------------


def _log_line(level: str, msg: str, kwargs: dict[str, object]) -> dict[str, object]:
    return {"level": level, "msg": msg, "kwargs": kwargs}


def _formatted(entry: dict[str, Any]) -> dict[str, object]:
    """A HandlerContext log entry as the agent records it: the message formatted with its named values."""
    msg = str(entry.get("msg", ""))
    kwargs = entry.get("args") or {}
    if isinstance(kwargs, dict) and kwargs:
        try:
            msg = msg % kwargs
        except (KeyError, TypeError, ValueError):
            pass
    return _log_line(str(entry.get("level", "INFO")), msg, kwargs if isinstance(kwargs, dict) else {})


def run_handler(request_text: str) -> str:
    """
    One handler call for the agent (CONTRACT.md): ``request`` = {"resource": {"id": "<rvid>", attributes…},
    "dry_run": bool, "action": "execute" | "reload"}; the answer = {"status", "change", "changes", "logs",
    "can_reload"}, JSON texts both ways. Every failure is part of the answer: this function does not raise.
    """
    import base64
    import json

    from inmanta import resources as resources_module
    from inmanta.agent import handler as handler_module

    request = json.loads(request_text)
    answer: dict[str, Any] = {"status": None, "change": "nochange", "changes": {}, "logs": [], "can_reload": False}
    rid = str(request.get("resource", {}).get("id", "?"))
    try:
        resource = resources_module.Resource.deserialize(request["resource"])
        handler_class = handler_module.Commander.get_handlers().get(resource.id.get_entity_type())
        if handler_class is None:
            answer["status"] = "unavailable"
            answer["logs"].append(_log_line("ERROR", "Unable to find a handler for %s" % rid, {}))
            return json.dumps(answer)
        dry_run = bool(request.get("dry_run", False))
        provider = handler_class(agent=None)
        provider._files = {h: base64.b64decode(c) for h, c in (request.get("files") or {}).items()}
        ctx = handler_module.HandlerContext(resource, dry_run=dry_run)
        try:
            answer["can_reload"] = bool(provider.can_reload())
            if request.get("action") == "reload":
                provider.do_reload(ctx, resource)
            else:
                provider.execute(ctx, resource, dry_run)
        finally:
            provider.close()
        # handlers report through set_resource_state (HEAD) or set_status (older code)
        state = ctx.resource_state if ctx.resource_state is not None else ctx.status
        answer["status"] = state.value if state is not None else None
        answer["change"] = ctx.change.value
        answer["changes"] = ctx.changes
        answer["logs"] = [_formatted(entry) for entry in ctx.logs]
        if provider._uploads:
            answer["uploads"] = {h: base64.b64encode(c).decode("ascii") for h, c in provider._uploads.items()}
    except Exception as e:  # the handler's own failures are in ctx; this is a resource or handler that cannot be made
        answer["status"] = "failed"
        answer["logs"].append(
            _log_line(
                "ERROR",
                "An error occurred during deployment of %s (exception: %s('%s'))" % (rid, _type_name(e), e),
                {"exception": "%s('%s')" % (_type_name(e), e), "traceback": _traceback_text(e)},
            )
        )
    return json.dumps(answer, default=repr)


# The compiler registers _inmanta_native before it imports this module: hand it the exception
# classes right away (load() does it too, for a host that imports this module first).
if _native.native is not None or "_inmanta_native" in sys.modules:
    _configure_native()
