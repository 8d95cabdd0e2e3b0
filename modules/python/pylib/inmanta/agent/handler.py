"""
Handlers: the code that deploys a resource type (``@provider("exec::Run", name="posix")`` on a
:class:`ResourceHandler` or :class:`CRUDHandler` subclass).

During a compile handlers are only defined and registered (the registry of ``inmanta._host`` lists
them); they run on an agent. The classes here follow the reference's handler protocol so that module
code imports, subclasses and (in the deploy) runs unchanged.
"""

import inspect
import logging
import traceback
import typing
import uuid
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from typing import Any, Generic, Optional, TypeVar, Union

from inmanta import const, resources
from inmanta.agent.cache import AgentCache
from inmanta.stable_api import stable_api

LOGGER = logging.getLogger(__name__)

T = TypeVar("T")
T_FUNC = TypeVar("T_FUNC", bound=Callable[..., object])
TResource = TypeVar("TResource", bound=resources.Resource)
TPurgeableResource = TypeVar("TPurgeableResource", bound=resources.PurgeableResource)
TDiscovery = TypeVar("TDiscovery", bound=resources.DiscoveryResource)
TDiscovered = TypeVar("TDiscovered")


@stable_api
class provider:  # noqa: N801
    """Register a handler class for a resource type: ``@provider("std::File", name="posix_file")``."""

    def __init__(self, resource_type: str, name: Optional[str] = None) -> None:
        self._resource_type = resource_type
        self._name = name

    def __call__(self, function: type["HandlerAPI[Any]"]) -> type["HandlerAPI[Any]"]:
        Commander.add_provider(self._resource_type, function, self._name)
        return function


@stable_api
class SkipResource(Exception):
    """The resource is skipped (not failed); the agent tries again later."""


@stable_api
class SkipResourceForDependencies(SkipResource):
    """Skipped because a dependency did not deploy; retried when the dependencies succeed."""


@stable_api
class ResourcePurged(Exception):
    """Raised by ``read_resource`` when the resource does not exist."""


class InvalidOperation(Exception):
    """An operation the context or the handler does not allow."""


class HandlerNotAvailableException(Exception):
    """The handler can not do its work (its admin interface is unreachable, ...)."""


@stable_api
def cache(
    func: Optional[T_FUNC] = None,
    ignore: list[str] = [],
    timeout: Optional[int] = None,
    for_version: Optional[bool] = None,
    cache_none: bool = True,
    cacheNone: Optional[bool] = None,  # noqa: N803
    call_on_delete: Optional[Callable[[Any], None]] = None,
    evict_after_creation: float = 0.0,
    evict_after_last_access: float = 0.0,
) -> Union[T_FUNC, Callable[[T_FUNC], T_FUNC]]:
    """
    Memoize a handler method: the method name and its arguments (a ``resource`` argument by its id
    without version, minus ``ignore``) form the key in the handler's cache.
    """

    def decorate(f: Callable[..., object]) -> T_FUNC:
        ignored = set(ignore)
        arg_names = list(inspect.signature(f).parameters.keys())[1:]

        def wrapper(self: "HandlerAPI[Any]", *args: object, **kwargs: object) -> object:
            kwargs.update(dict(zip(arg_names, args)))
            return self.cache.get_or_else(
                f.__name__,
                lambda **kw: f(self, **kw),
                for_version=for_version,
                timeout=timeout if timeout is not None else evict_after_creation,
                ignore=ignored,
                cache_none=cacheNone if cacheNone is not None else cache_none,
                call_on_delete=call_on_delete,
                **kwargs,
            )

        wrapper.__name__ = f.__name__
        wrapper.__doc__ = f.__doc__
        return typing.cast(T_FUNC, wrapper)

    if func is None:
        return decorate
    return decorate(func)


@stable_api
class LoggerABC(ABC):
    """Logging with keyword arguments: ``ctx.info("done %(x)s", x=1)``."""

    def critical(self, msg: str, *args: object, exc_info: bool = False, **kwargs: object) -> None:
        self._log_msg(logging.CRITICAL, msg, *args, exc_info=exc_info, **kwargs)

    def error(self, msg: str, *args: object, exc_info: bool = False, **kwargs: object) -> None:
        self._log_msg(logging.ERROR, msg, *args, exc_info=exc_info, **kwargs)

    def warning(self, msg: str, *args: object, exc_info: bool = False, **kwargs: object) -> None:
        self._log_msg(logging.WARNING, msg, *args, exc_info=exc_info, **kwargs)

    warn = warning

    def info(self, msg: str, *args: object, exc_info: bool = False, **kwargs: object) -> None:
        self._log_msg(logging.INFO, msg, *args, exc_info=exc_info, **kwargs)

    def debug(self, msg: str, *args: object, exc_info: bool = False, **kwargs: object) -> None:
        self._log_msg(logging.DEBUG, msg, *args, exc_info=exc_info, **kwargs)

    def exception(self, msg: str, *args: object, exc_info: bool = True, **kwargs: object) -> None:
        self._log_msg(logging.ERROR, msg, *args, exc_info=exc_info, **kwargs)

    @abstractmethod
    def _log_msg(self, level: int, msg: str, *args: object, exc_info: bool = False, **kwargs: object) -> None:
        raise NotImplementedError()


@stable_api
class PythonLogger(LoggerABC):
    """A LoggerABC on top of a ``logging.Logger``."""

    def __init__(self, logger: logging.Logger) -> None:
        self.logger = logger

    def _log_msg(self, level: int, msg: str, *args: object, exc_info: bool = False, **kwargs: object) -> None:
        if args:
            raise Exception("Args not supported")
        if kwargs:
            self.logger.log(level, msg, kwargs, exc_info=exc_info)
        else:
            self.logger.log(level, msg, exc_info=exc_info)


@stable_api
class HandlerContext(LoggerABC):
    """What a handler method gets as ``ctx``: the state of one resource action (changes, status, logs)."""

    def __init__(
        self,
        resource: resources.Resource,
        dry_run: bool = False,
        action_id: Optional[uuid.UUID] = None,
        logger: Optional[logging.Logger] = None,
    ) -> None:
        self._resource = resource
        self._dry_run = dry_run
        self._action_id = action_id if action_id is not None else uuid.uuid4()
        self._logger = logger if logger is not None else LOGGER
        self._cache: dict[str, Any] = {}
        self._purged = False
        self._updated = False
        self._created = False
        self._change = const.Change.nochange
        self._changes: dict[str, dict[str, object]] = {}
        self._status: Optional[const.ResourceState] = None
        self._resource_state: Optional[const.HandlerResourceState] = None
        self._logs: list[dict[str, object]] = []
        self._facts: list[dict[str, Any]] = []

    def set_fact(self, fact_id: str, value: str, expires: bool = True) -> None:
        self._facts.append(
            {"id": fact_id, "source": const.ParameterSource.fact.value, "value": value,
             "resource_id": self._resource.id.resource_str(), "expires": expires}
        )

    @property
    def facts(self) -> list[dict[str, Any]]:
        return self._facts

    @property
    def action_id(self) -> uuid.UUID:
        return self._action_id

    @property
    def status(self) -> Optional[const.ResourceState]:
        return self._status

    @property
    def resource_state(self) -> Optional[const.HandlerResourceState]:
        return self._resource_state

    @property
    def logs(self) -> list[dict[str, object]]:
        return self._logs

    def set_status(self, status: const.ResourceState) -> None:
        self._status = status

    def set_resource_state(self, new_state: const.HandlerResourceState) -> None:
        self._resource_state = new_state

    def is_dry_run(self) -> bool:
        return self._dry_run

    def get(self, name: str) -> Any:
        return self._cache[name]

    def contains(self, key: str) -> bool:
        return key in self._cache

    def set(self, name: str, value: Any) -> None:
        self._cache[name] = value

    def set_created(self) -> None:
        self._created = True
        if self._change is not const.Change.nochange:
            raise InvalidOperation(f"Unable to set {const.Change.created} operation, {self._change} already set.")
        self._change = const.Change.created

    def set_purged(self) -> None:
        self._purged = True
        if self._change is not const.Change.nochange:
            raise InvalidOperation(f"Unable to set {const.Change.purged} operation, {self._change} already set.")
        self._change = const.Change.purged

    def set_updated(self) -> None:
        self._updated = True
        if self._change is not const.Change.nochange:
            raise InvalidOperation(f"Unable to set {const.Change.updated} operation, {self._change} already set.")
        self._change = const.Change.updated

    @property
    def changed(self) -> bool:
        return self._created or self._updated or self._purged

    @property
    def change(self) -> const.Change:
        return self._change

    def add_change(self, name: str, desired: object, current: object = None) -> None:
        self._changes[name] = {"current": current, "desired": desired}

    def add_changes(self, **kwargs: object) -> None:
        for field, value in kwargs.items():
            self._changes[field] = {"desired": value}

    def fields_updated(self, fields: str) -> None:
        self._changes[fields] = {"current": None, "desired": None}

    def update_changes(self, changes: Mapping[str, Any]) -> None:
        for attribute, change in changes.items():
            if isinstance(change, Mapping):
                self._changes[attribute] = {"current": change.get("current"), "desired": change.get("desired")}
            elif isinstance(change, tuple) and len(change) == 2:
                self._changes[attribute] = {"current": change[0], "desired": change[1]}
            else:
                raise InvalidOperation(f"Reported changes for {attribute} not in a type that is recognized.")

    @property
    def changes(self) -> dict[str, dict[str, object]]:
        return self._changes

    def _log_msg(self, level: int, msg: str, *args: object, exc_info: bool = False, **kwargs: object) -> None:
        if args:
            raise Exception("Args not supported")
        if exc_info:
            kwargs["traceback"] = traceback.format_exc()
        try:
            text = msg % kwargs if kwargs else msg
        except (KeyError, TypeError, ValueError):
            text = msg
        self._logs.append({"level": logging.getLevelName(level), "msg": msg, "args": kwargs})
        self._logger.log(level, "resource %s: %s", self._resource.id, text, exc_info=exc_info)


class HandlerAPI(ABC, Generic[TResource]):
    """The interface between an agent and a handler."""

    def __init__(self, agent: Any, io: object = None) -> None:
        from inmanta.agent.io.local import LocalIO

        self._agent = agent
        self._client = None
        self._io = io if io is not None else LocalIO("local:", {})
        self._files: dict[str, bytes] = {}  # sent with the call, by hash
        self._uploads: dict[str, bytes] = {}  # upload_file's, returned with the answer
        self.cache: AgentCache = AgentCache()

    def close(self) -> None:
        """Called when the agent stops using this handler."""

    def set_cache(self, cache: AgentCache) -> None:
        self.cache = cache

    def can_reload(self) -> bool:
        return False

    def do_reload(self, ctx: HandlerContext, resource: TResource) -> None:
        """Reload the resource (``can_reload`` returns True)."""

    def pre(self, ctx: HandlerContext, resource: TResource) -> None:
        """Runs before the resource is deployed."""

    def post(self, ctx: HandlerContext, resource: TResource) -> None:
        """Runs after the resource is deployed."""

    def facts(self, ctx: HandlerContext, resource: TResource) -> dict[str, str]:
        return {}

    def available(self, resource: TResource) -> bool:
        return True

    @abstractmethod
    def execute(self, ctx: HandlerContext, resource: TResource, dry_run: bool = False) -> None:
        raise NotImplementedError()

    def deploy(self, ctx: HandlerContext, resource: TResource, requires: Mapping[str, object]) -> None:
        """
        Deploy ``resource``; ``requires`` maps the ids of its dependencies to their state. As in the
        reference, it is skipped when a dependency is in an unexpected state (dry, undefined,
        skipped_for_undefined) or still waiting to deploy (available, deploying), else executed
        (also when a dependency failed). Reloading after a dependency changed is left to the agent.
        """

        def state_of(value: object) -> str:
            return str(getattr(value, "value", value))

        if not getattr(resource, "report_only", False):
            unexpected = {rid: state_of(v) for rid, v in requires.items() if state_of(v) in ("dry", "undefined", "skipped_for_undefined")}
            if unexpected:
                ctx.set_resource_state(const.HandlerResourceState.skipped_for_dependency)
                ctx.warning(
                    "Resource %(resource)s skipped because a dependency is in an unexpected state: %(unexpected_states)s",
                    resource=resource.id.resource_version_str(),
                    unexpected_states=str(unexpected),
                )
                return
            waiting = [rid for rid, v in requires.items() if state_of(v) in ("available", "deploying")]
            if waiting:
                ctx.set_resource_state(const.HandlerResourceState.skipped_for_dependency)
                ctx.info(
                    "Resource %(resource)s skipped because some of its dependencies got a new desired state while it was "
                    "waiting to deploy: %(dependencies)s",
                    resource=resource.id.resource_version_str(),
                    dependencies=waiting,
                )
                return
        self.execute(ctx, resource)

    def check_facts(self, ctx: HandlerContext, resource: TResource) -> dict[str, str]:
        self.pre(ctx, resource)
        try:
            return self.facts(ctx, resource)
        finally:
            self.post(ctx, resource)

    def run_sync(self, func: Callable[[], Any]) -> Any:
        from inmanta import util

        return util.run_coroutine(func(), 120)

    def get_client(self) -> Any:
        from inmanta import protocol

        if self._client is None:
            self._client = protocol.Client("agent")  # type: ignore[assignment]
        return self._client

    # The files of the file store cross with the handler call (CONTRACT.md, run_handler): the agent
    # sends those the resource's attributes name by hash, and stores what upload_file adds.
    def get_file(self, hash_id: str) -> Optional[bytes]:
        """The file's content, or None when the agent did not send it (no attribute names it)."""
        return self._files.get(hash_id, self._uploads.get(hash_id))

    def stat_file(self, hash_id: str) -> bool:
        return hash_id in self._files or hash_id in self._uploads

    def upload_file(self, hash_id: str, content: bytes) -> None:
        self._uploads[hash_id] = bytes(content)


def _run_action(handler: "HandlerAPI[Any]", ctx: HandlerContext, resource: resources.Resource, action: Callable[[], None]) -> None:
    """pre, the action, post; skips and failures become the resource state, as the reference's handlers report them."""
    try:
        handler.pre(ctx, resource)
        action()
    except SkipResourceForDependencies as e:
        ctx.set_resource_state(const.HandlerResourceState.skipped_for_dependency)
        ctx.warning(msg="Resource %(resource_id)s was skipped: %(reason)s", resource_id=resource.id.resource_str(), reason=e.args)
    except SkipResource as e:
        ctx.set_resource_state(const.HandlerResourceState.skipped)
        ctx.warning(msg="Resource %(resource_id)s was skipped: %(reason)s", resource_id=resource.id.resource_str(), reason=e.args)
    except Exception as e:
        ctx.set_resource_state(const.HandlerResourceState.failed)
        ctx.exception(
            "An error occurred during deployment of %(resource_id)s (exception: %(exception)s)",
            resource_id=resource.id.resource_str(),
            exception=f"{e.__class__.__name__}('{e}')",
        )
    finally:
        try:
            handler.post(ctx, resource)
        except Exception as e:
            ctx.exception(
                "An error occurred after deployment of %(resource_id)s (exception: %(exception)s)",
                resource_id=resource.id.resource_str(),
                exception=f"{e.__class__.__name__}('{e}')",
            )


def _report_only(ctx: HandlerContext, resource: resources.Resource, changes: Mapping[str, object]) -> None:
    if changes:
        ctx.set_resource_state(const.HandlerResourceState.non_compliant)
        ctx.info(msg="Resource %(resource_id)s was marked as non-compliant.", resource_id=resource.id.resource_str())
    else:
        ctx.set_resource_state(const.HandlerResourceState.deployed)


@stable_api
class ResourceHandler(HandlerAPI[TResource]):
    """A handler that reads the current state (``check_resource``) and applies the difference (``do_changes``)."""

    def _diff(self, current: TResource, desired: TResource) -> dict[str, dict[str, Any]]:
        changes: dict[str, dict[str, Any]] = {}
        for field in current.__class__.fields:
            current_value = getattr(current, field)
            desired_value = getattr(desired, field)
            if current_value != desired_value and desired_value is not None:
                changes[field] = {"current": current_value, "desired": desired_value}
        return changes

    def check_resource(self, ctx: HandlerContext, resource: TResource) -> TResource:
        raise NotImplementedError()

    def list_changes(self, ctx: HandlerContext, resource: TResource) -> dict[str, dict[str, Any]]:
        current = self.check_resource(ctx, resource)
        return self._diff(current, resource)

    def do_changes(self, ctx: HandlerContext, resource: TResource, changes: Mapping[str, Mapping[str, object]]) -> None:
        raise NotImplementedError()

    def execute(self, ctx: HandlerContext, resource: TResource, dry_run: bool = False) -> None:
        def action() -> None:
            changes = self.list_changes(ctx, resource)
            ctx.update_changes(changes)
            if getattr(resource, "report_only", False):
                _report_only(ctx, resource, changes)
            elif dry_run:
                ctx.set_resource_state(const.HandlerResourceState.dry)
            else:
                # always called, also without changes: handlers such as exec's decide in do_changes
                self.do_changes(ctx, resource, changes)
                ctx.set_resource_state(const.HandlerResourceState.deployed)

        _run_action(self, ctx, resource, action)


@stable_api
class CRUDHandler(ResourceHandler[TPurgeableResource]):
    """A handler in four steps: ``read_resource``, then ``create``/``update``/``delete_resource``."""

    def read_resource(self, ctx: HandlerContext, resource: TPurgeableResource) -> None:
        """Fill ``resource`` with the current state; raise :class:`ResourcePurged` when it does not exist."""

    def create_resource(self, ctx: HandlerContext, resource: TPurgeableResource) -> None:
        raise NotImplementedError()

    def delete_resource(self, ctx: HandlerContext, resource: TPurgeableResource) -> None:
        raise NotImplementedError()

    def update_resource(self, ctx: HandlerContext, changes: dict[str, dict[str, Any]], resource: TPurgeableResource) -> None:
        raise NotImplementedError()

    def calculate_diff(
        self, ctx: HandlerContext, current: TPurgeableResource, desired: TPurgeableResource
    ) -> dict[str, dict[str, Any]]:
        return self._diff(current, desired)

    def execute(self, ctx: HandlerContext, resource: TPurgeableResource, dry_run: bool = False) -> None:
        def action() -> None:
            desired = resource
            # read into a copy that starts as "exists": read_resource only has to say when it does not
            current = desired.clone(purged=False)
            changes: dict[str, dict[str, Any]] = {}
            try:
                self.read_resource(ctx, current)
                changes = self.calculate_diff(ctx, current, desired)
            except ResourcePurged:
                if not desired.purged:  # type: ignore[attr-defined]
                    changes["purged"] = {"desired": False, "current": True}
            for field, values in changes.items():
                ctx.add_change(field, desired=values["desired"], current=values["current"])

            if getattr(resource, "report_only", False):
                _report_only(ctx, resource, changes)
            elif dry_run:
                ctx.set_resource_state(const.HandlerResourceState.dry)
            else:
                if "purged" in changes:
                    if changes["purged"]["desired"]:
                        self.delete_resource(ctx, desired)
                    else:
                        self.create_resource(ctx, desired)
                elif not desired.purged and changes:  # type: ignore[attr-defined]
                    self.update_resource(ctx, dict(changes), desired)
                ctx.set_resource_state(const.HandlerResourceState.deployed)

        _run_action(self, ctx, resource, action)


CRUDHandlerGeneric = CRUDHandler


@stable_api
class DiscoveryHandler(HandlerAPI[TDiscovery], Generic[TDiscovery, TDiscovered]):
    """A handler that discovers resources instead of deploying one."""

    def check_facts(self, ctx: HandlerContext, resource: TDiscovery) -> dict[str, str]:
        return {}

    @abstractmethod
    def discover_resources(self, ctx: HandlerContext, discovery_resource: TDiscovery) -> Mapping[str, TDiscovered]:
        raise NotImplementedError()

    def execute(self, ctx: HandlerContext, resource: TDiscovery, dry_run: bool = False) -> None:
        def action() -> None:
            self.discover_resources(ctx, resource)
            ctx.set_resource_state(const.HandlerResourceState.deployed)

        _run_action(self, ctx, resource, action)


class Commander:
    """The registered handler classes, by resource type (a later registration replaces an earlier one)."""

    __command_functions: dict[str, type[HandlerAPI[Any]]] = {}
    __names: dict[str, Optional[str]] = {}

    @classmethod
    def get_handlers(cls) -> dict[str, type[HandlerAPI[Any]]]:
        return cls.__command_functions

    @classmethod
    def reset(cls) -> None:
        cls.__command_functions = {}
        cls.__names = {}

    @classmethod
    def close(cls) -> None:
        pass

    @classmethod
    def get_provider(cls, agent: Any, resource: resources.Resource) -> HandlerAPI[Any]:
        resource_type = resource.id.get_entity_type()
        if resource_type not in cls.__command_functions:
            raise Exception("No resource handler registered for resource of type %s" % resource_type)
        return cls.__command_functions[resource_type](agent)

    @classmethod
    def add_provider(cls, resource: str, provider: type[HandlerAPI[Any]], name: Optional[str] = None) -> None:
        cls.__command_functions[resource] = provider
        cls.__names[resource] = name

    @classmethod
    def get_providers(cls) -> typing.Iterator[tuple[str, type[HandlerAPI[Any]]]]:
        yield from cls.__command_functions.items()

    @classmethod
    def get_provider_name(cls, resource_type: str) -> Optional[str]:
        return cls.__names.get(resource_type)

    @classmethod
    def get_provider_class(cls, resource_type: str, name: str) -> Optional[type[HandlerAPI[Any]]]:
        return cls.__command_functions.get(resource_type)
