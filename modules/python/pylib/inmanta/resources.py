"""
Resource types: how instances of an entity become resources of the export.

``@resource("exec::Run", agent="host.name", id_attribute="command")`` on a :class:`Resource`
subclass registers it. The class lists its ``fields`` (merged with the fields of every base class); for
each field the export takes, in this order, the result of the static method ``get_<field>(exporter,
instance)``, of ``map[field](exporter, instance)``, or the instance's attribute of that name. The id is
``<entity>[<agent>,<id_attribute>=<value>]`` where the agent is found by following the ``agent`` path
of attributes from the instance.
"""

import logging
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Callable, Optional, TypeVar

import inmanta.ast
from inmanta import const
from inmanta.execute import proxy, util
from inmanta.stable_api import stable_api

if TYPE_CHECKING:
    from inmanta import export

LOGGER = logging.getLogger(__name__)

R = TypeVar("R", bound="Resource")


class ResourceException(Exception):
    pass


@stable_api
class resource:  # noqa: N801
    """
    Registers a resource class for an entity.

    :param name: the entity, e.g. ``exec::Run``
    :param id_attribute: the field that identifies the resource on its agent (it may be a mapped field)
    :param agent: the path of attributes from the instance to the agent's name, e.g. ``host.name``
    """

    _resources: dict[str, tuple[type["Resource"], dict[str, str]]] = {}

    def __init__(self, name: str, id_attribute: str, agent: str) -> None:
        if not isinstance(agent, str):
            raise ResourceException(f"The agent parameter has to be a string, got {agent} of type {type(agent)}")
        self._cls_name = name
        self._options = {"agent": agent, "name": id_attribute}

    def __call__(self, cls: type[R]) -> type[R]:
        if self._cls_name in resource._resources:
            LOGGER.info("Reloading module %s" % self._cls_name)
            del resource._resources[self._cls_name]
        resource._resources[self._cls_name] = (cls, self._options)
        return cls

    @classmethod
    def add_resource(cls, cls_name: str, resource_type: type["Resource"], options: dict[str, str]) -> None:
        cls._resources[cls_name] = (resource_type, options)

    @classmethod
    def validate(cls) -> None:
        for resource_class, _ in cls._resources.values():
            resource_class.validate()

    @classmethod
    def get_entity_resources(cls) -> Iterable[str]:
        return cls._resources.keys()

    @classmethod
    def get_class(cls, name: str) -> tuple[Optional[type["Resource"]], Optional[dict[str, str]]]:
        return cls._resources.get(name, (None, None))

    @classmethod
    def get_resources(cls) -> Iterator[tuple[str, type["Resource"]]]:
        return ((name, definition) for name, (definition, _) in cls._resources.items())

    @classmethod
    def reset(cls) -> None:
        cls._resources = {}


class ResourceNotFoundExcpetion(Exception):  # (sic) the reference's spelling, which modules import
    """A handler did not find the resource it looked for."""


ResourceNotFoundException = ResourceNotFoundExcpetion


@stable_api
class IgnoreResourceException(Exception):
    """Raise from a getter to leave this instance out of the export (not managed by the orchestrator)."""


def to_id(entity: "proxy.DynamicProxy") -> Optional[str]:
    """The resource id of an instance, when a resource class is registered for its entity (or a parent)."""
    entity_type = entity._type()
    for name in [str(entity_type)] + entity_type.get_all_parent_names():
        cls, options = resource.get_class(name)
        if cls is not None and options is not None:
            return str(cls.object_to_id(entity, name, options["name"], options["agent"]))
    return None


class ResourceMeta(type):
    """Merges the ``fields`` of a resource class with those of all its base classes."""

    @classmethod
    def _inherited_fields(mcs, bases: Sequence[type]) -> list[str]:
        fields: list[str] = []
        for base in bases:
            own = base.__dict__.get("fields")
            if own is not None:
                if not isinstance(own, (tuple, list)):
                    raise Exception("fields attribute of %s should be a tuple or list" % base)
                fields.extend(own)
            fields.extend(mcs._inherited_fields(base.__bases__))
        return fields

    def __new__(mcs, class_name: str, bases: tuple[type, ...], dct: dict[str, Any]) -> "ResourceMeta":
        fields = mcs._inherited_fields(bases)
        if "fields" in dct:
            if not isinstance(dct["fields"], (tuple, list)):
                raise Exception("fields attribute of %s should be a tuple or list" % class_name)
            fields.extend(dct["fields"])
        # unique, in first-seen order (the reference keeps them in a set; the order carries no meaning)
        dct["fields"] = tuple(dict.fromkeys(fields))
        return type.__new__(mcs, class_name, bases, dct)


RESERVED_FOR_RESOURCE = {"id", "version", "model", "requires", "unknowns", "set_version", "clone", "is_type", "serialize"}


@stable_api
class Resource(metaclass=ResourceMeta):
    """
    Base class of resource types. A subclass lists its ``fields``; a field not found on the instance is
    computed by a static method ``get_<field>(exporter, instance)`` or by the ``map`` table.
    """

    fields: Sequence[str] = (
        const.RESOURCE_ATTRIBUTE_SEND_EVENTS,
        const.RESOURCE_ATTRIBUTE_RECEIVE_EVENTS,
        const.RESOURCE_ATTRIBUTE_REFERENCES,
        const.RESOURCE_ATTRIBUTE_MUTATORS,
        const.RESOURCE_ATTRIBUTE_REPORT_ONLY,
    )
    map: dict[str, Callable[[Optional["export.Exporter"], "proxy.DynamicProxy"], Any]]
    model: "proxy.DynamicProxy"

    @staticmethod
    def get_send_event(_exporter: "export.Exporter", obj: "Resource") -> bool:
        try:
            return obj.send_event
        except Exception:
            return False

    @staticmethod
    def get_receive_events(_exporter: "export.Exporter", obj: "Resource") -> bool:
        try:
            return obj.receive_events
        except Exception:
            return True

    @staticmethod
    def get_report_only(_exporter: "export.Exporter", obj: "Resource") -> bool:
        try:
            return obj.report_only
        except Exception:
            return False

    @staticmethod
    def get_references(_exporter: "export.Exporter", obj: "Resource") -> list[object]:
        return []

    @staticmethod
    def get_mutators(_exporter: "export.Exporter", obj: "Resource") -> list[object]:
        return []

    # -- from the model --------------------------------------------------------------------------------------------

    @classmethod
    def object_to_id(
        cls, model_object: "proxy.DynamicProxy", entity_name: str, attribute_name: str, agent_attribute: str
    ) -> "Id":
        """The id of ``model_object``: agent from the ``agent_attribute`` path, value of the id attribute (mapped)."""
        path = agent_attribute.split(".")
        agent_value: Any = model_object
        for step in path:
            try:
                if isinstance(agent_value, list):
                    agent_value = agent_value[0]
                agent_value = getattr(agent_value, step)
            except (ResourceException, inmanta.ast.UnsetException, inmanta.ast.UnknownException):
                raise
            except Exception:
                raise Exception(
                    "Unable to get the name of agent %s belongs to. In path %s, '%s' does not exist"
                    % (model_object, agent_attribute, step)
                )
        attribute_value = cls.map_field(None, entity_name, attribute_name, model_object)
        if isinstance(attribute_value, util.Unknown):
            raise inmanta.ast.UnknownException(attribute_value)
        if not isinstance(agent_value, str):
            raise ResourceException(
                f"The agent attribute should lead to a string, got {agent_value} of type {type(agent_value)}"
            )
        return Id(entity_name, str(agent_value), attribute_name, str(attribute_value))

    @classmethod
    def field_value(cls, exporter: Optional["export.Exporter"], field_name: str, model_object: "proxy.DynamicProxy") -> object:
        """One field as the class computes it, failures as they are: its ``get_<field>`` static method,
        else its ``map`` entry, else the model attribute of that name."""
        if hasattr(cls, "get_" + field_name):
            return getattr(cls, "get_" + field_name)(exporter, model_object)
        if hasattr(cls, "map") and field_name in cls.map:
            return cls.map[field_name](exporter, model_object)
        return getattr(model_object, field_name)

    @classmethod
    def map_field(
        cls,
        exporter: Optional["export.Exporter"],
        entity_name: str,
        field_name: str,
        model_object: "proxy.DynamicProxy",
        reference_collector: Optional[object] = None,
    ) -> object:
        """The value of one field (an unknown value comes back as an :class:`Unknown`)."""
        try:
            value = cls.field_value(exporter, field_name, model_object)
            if reference_collector is not None:
                value = _plain_field_value(value, field_name)
            return value
        except IgnoreResourceException:
            raise
        except inmanta.ast.UnknownException as e:
            return e.unknown
        except inmanta.ast.PluginException as e:
            raise inmanta.ast.ExplicitPluginException(
                None, f"Failed to get attribute '{field_name}' for export on '{entity_name}'", e
            )
        except inmanta.ast.CompilerException:
            raise
        except Exception as e:
            raise inmanta.ast.ExternalException(
                None, f"Failed to get attribute '{field_name}' for export on '{entity_name}'", e
            )

    @classmethod
    def create_from_model(cls, exporter: "export.Exporter", entity_name: str, model_object: "proxy.DynamicProxy") -> "Resource":
        resource_cls, options = resource.get_class(entity_name)
        if resource_cls is None or options is None:
            raise TypeError("No resource class registered for entity %s" % entity_name)
        obj = resource_cls(resource_cls.object_to_id(model_object, entity_name, options["name"], options["agent"]))
        fields = {
            field: resource_cls.map_field(exporter, entity_name, field, model_object, reference_collector=True)
            for field in resource_cls.fields
        }
        obj.populate(fields)
        obj.model = model_object
        return obj

    @classmethod
    def validate(cls) -> None:
        for field in cls.fields:
            if field.startswith("_"):
                raise ResourceException("Resource field names can not start with _, reported in %s" % cls.__name__)
            if field in RESERVED_FOR_RESOURCE:
                raise ResourceException(
                    f"Resource {field} is a reserved keyword and not a valid field name, reported in {cls.__name__}"
                )

    # -- the resource object ---------------------------------------------------------------------------------------

    def __init__(self, _id: "Id") -> None:
        self.id = _id
        self.requires: set[Any] = set()
        self.resource_requires: set[Resource] = set()
        self.unknowns: set[str] = set()
        if not hasattr(self.__class__, "fields"):
            raise Exception("A resource should have a list of fields")
        for field in self.__class__.fields:
            setattr(self, field, None)

    @classmethod
    def deserialize(cls, obj_map: dict[str, Any]) -> "Resource":
        """A resource from its JSON form (the class registered for its entity)."""
        obj_id = Id.parse_id(obj_map["id"])
        cls_resource, _ = resource.get_class(obj_id.entity_type)
        if cls_resource is None:
            raise TypeError("No resource class registered for entity %s" % obj_id.entity_type)
        # resources stored before these fields existed
        values = dict(obj_map)
        values.setdefault(const.RESOURCE_ATTRIBUTE_RECEIVE_EVENTS, True)
        values.setdefault(const.RESOURCE_ATTRIBUTE_REPORT_ONLY, False)
        if values.get(const.RESOURCE_ATTRIBUTE_MUTATORS) is None or values.get(const.RESOURCE_ATTRIBUTE_REFERENCES) is None:
            values[const.RESOURCE_ATTRIBUTE_MUTATORS] = []
            values[const.RESOURCE_ATTRIBUTE_REFERENCES] = []
        values.pop("version", None)
        obj = cls_resource(obj_id)
        obj.populate(values)
        return obj

    def populate(self, fields: dict[str, Any], force_fields: bool = False) -> None:
        for field in self.__class__.fields:
            if field in fields or force_fields:
                setattr(self, field, fields[field])
            else:
                raise Exception("Resource with id {} does not have field {}".format(fields.get("id", self.id), field))
        for require in fields.get("requires", []) or []:
            self.requires.add(Id.parse_id(require))

    def get(self, key: str, default: object = None) -> object:
        return getattr(self, key) if key in self.fields else default

    def __getitem__(self, key: str) -> object:
        if key in self.fields:
            return getattr(self, key)
        raise KeyError()

    def __contains__(self, item: str) -> bool:
        return item in self.fields

    def __setitem__(self, key: str, value: object) -> None:
        if key in self.fields:
            setattr(self, key, value)
            return
        raise KeyError()

    def __delitem__(self, key: str) -> None:
        raise Exception("Deleting fields is not allowed on a resource")

    def clear(self) -> None:
        raise Exception("Deleting fields is not allowed on a resource")

    def items(self) -> Iterator[tuple[str, object]]:
        for key in self.fields:
            yield key, getattr(self, key)

    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(value, util.Unknown):
            self.__dict__.setdefault("unknowns", set()).add(name)
        self.__dict__[name] = value

    def __str__(self) -> str:
        return str(self.id)

    def __repr__(self) -> str:
        return str(self)

    def clone(self: R, **kwargs: Any) -> R:
        copy = Resource.deserialize(self.serialize())
        for key, value in kwargs.items():
            setattr(copy, key, value)
        return copy  # type: ignore[return-value]

    def serialize(self) -> dict[str, Any]:
        result: dict[str, Any] = {field: getattr(self, field) for field in self.__class__.fields}
        result["requires"] = [str(x) for x in self.requires]
        result["id"] = self.id.resource_version_str()
        return result

    def is_type(self, type_name: str) -> bool:
        return str(self.model._type()) == type_name

    # the reference's name for these; kept for handlers
    def resolve_all_references(self, logger: object) -> None:
        return None


def _plain_field_value(value: object, path: str) -> object:
    """
    A field value as plain data: proxied lists and dicts become lists and dicts; an entity instance (or an
    unknown inside a container) can not be exported, as in the reference.
    """
    if isinstance(value, (list, proxy.SequenceProxy)):
        return [_plain_field_value(item, f"{path}[{index}]") for index, item in enumerate(value)]
    if isinstance(value, (dict, proxy.DictProxy)):
        return {key: _plain_field_value(item, f"{path}.'{key}'") for key, item in value.items()}
    if isinstance(value, (proxy.DynamicProxy, util.Unknown)):
        raise TypeError(f"{value!r} in resource is not JSON serializable at path {path}")
    return value


@stable_api
class PurgeableResource(Resource):
    """A resource that can be removed (``purged``)."""

    fields = ("purged", "purge_on_delete")


@stable_api
class DiscoveryResource(Resource):
    fields = ()


@stable_api
class ManagedResource(Resource):
    """A resource that is left out of the export when its ``managed`` attribute is false."""

    fields = ("managed",)

    @staticmethod
    def get_managed(exporter: "export.Exporter", obj: "ManagedResource") -> bool:
        if not obj.managed:
            raise IgnoreResourceException()
        return obj.managed


PARSE_ID_REGEX = re.compile(
    r"^(?P<id>(?P<type>(?P<ns>[\w-]+(::[\w-]+)*)::(?P<class>[\w-]+))\[(?P<hostname>[^,]+),"
    r"(?P<attr>[^=]+)=(?P<value>[^\]]+)\])(,v=(?P<version>[0-9]+))?$"
)

PARSE_RVID_REGEX = re.compile(
    r"^(?P<id>(?P<type>(?P<ns>[\w-]+(::[\w-]+)*)::(?P<class>[\w-]+))\[(?P<hostname>[^,]+),"
    r"(?P<attr>[^=]+)=(?P<value>[^\]]+)\]),v=(?P<version>[0-9]+)$"
)


@stable_api
class Id:
    """The id of a resource: ``<entity_type>[<agent_name>,<attribute>=<attribute_value>]`` and a version."""

    def __init__(self, entity_type: str, agent_name: str, attribute: str, attribute_value: str, version: int = 0) -> None:
        for value, label, forbidden in (
            (agent_name, "agent name", ","),
            (attribute, "attribute name", ",="),
            (attribute_value, "attribute value", "]"),
        ):
            for char in forbidden:
                if char in value:
                    raise ValueError(f"Invalid {label} '{value}': cannot contain '{char}'.")
        self._entity_type = entity_type
        self._agent_name = agent_name
        self._attribute = attribute
        self._attribute_value = attribute_value
        self._version = version

    def to_dict(self) -> dict[str, object]:
        return {
            "entity_type": self._entity_type,
            "agent_name": self._agent_name,
            "attribute": self._attribute,
            "attribute_value": self._attribute_value,
            "version": self._version,
        }

    def get_entity_type(self) -> str:
        return self._entity_type

    def get_agent_name(self) -> str:
        return self._agent_name

    def get_attribute(self) -> str:
        return self._attribute

    def get_attribute_value(self) -> str:
        return self._attribute_value

    def get_version(self) -> int:
        return self._version

    def set_version(self, version: int) -> None:
        if self._version > 0 and version != self._version:
            raise AttributeError("can't set attribute version")
        self._version = version

    def get_inmanta_module(self) -> str:
        return self._entity_type.split("::", maxsplit=1)[0]

    def copy(self, *, version: int) -> "Id":
        return Id(self._entity_type, self._agent_name, self._attribute, self._attribute_value, version)

    def resource_str(self) -> str:
        return f"{self._entity_type}[{self._agent_name},{self._attribute}={self._attribute_value}]"

    def resource_version_str(self) -> str:
        return f"{self.resource_str()},v={self._version}"

    def __str__(self) -> str:
        return self.resource_version_str() if self._version > 0 else self.resource_str()

    def __repr__(self) -> str:
        return str(self)

    def __hash__(self) -> int:
        return hash(str(self))

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and str(self) == str(other)

    def get_instance(self) -> Optional[Resource]:
        cls, _ = resource.get_class(self._entity_type)
        if cls is None:
            return None
        obj = cls(self)
        setattr(obj, self._attribute, self._attribute_value)
        return obj

    @classmethod
    def parse_id(cls, resource_id: str, version: Optional[int] = None) -> "Id":
        match = PARSE_ID_REGEX.search(resource_id)
        if match is None:
            raise ValueError("Invalid id for resource %s" % resource_id)
        if version is None:
            version = int(match.group("version")) if match.group("version") is not None else 0
        return Id(match.group("type"), match.group("hostname"), match.group("attr"), match.group("value"), version)

    @classmethod
    def parse_resource_version_id(cls, resource_id: str) -> "Id":
        parsed = cls.parse_id(resource_id)
        if parsed.version == 0:
            raise ValueError(f"Version is missing from resource id: {resource_id}")
        return parsed

    @classmethod
    def is_resource_version_id(cls, value: str) -> bool:
        return PARSE_RVID_REGEX.search(value) is not None

    @classmethod
    def is_resource_id(cls, value: str) -> bool:
        return PARSE_ID_REGEX.search(value) is not None

    def is_resource_version_id_obj(self) -> bool:
        return self._version != 0

    @classmethod
    def set_version_in_id(cls, id_str: str, new_version: int) -> str:
        return cls.parse_id(id_str).copy(version=new_version).resource_version_str()

    entity_type = property(get_entity_type)
    agent_name = property(get_agent_name)
    attribute = property(get_attribute)
    attribute_value = property(get_attribute_value)
    version = property(get_version, set_version)


class HostNotFoundException(Exception):
    """The agent could not reach the host of a resource."""

    def __init__(self, hostname: str, user: str, error: str) -> None:
        Exception.__init__(self, f"Failed to access host {hostname} as user {user} over ssh.")
        self.hostname = hostname
        self.user = user
        self.error = error


ResourceIdStr = str
ResourceVersionIdStr = str
