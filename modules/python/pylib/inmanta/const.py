"""Constants and enumerations of inmanta-core that module and handler code refers to."""

from enum import Enum
from typing import Optional


class ResourceState(str, Enum):
    unavailable = "unavailable"
    skipped = "skipped"
    dry = "dry"
    deployed = "deployed"
    failed = "failed"
    deploying = "deploying"
    available = "available"
    cancelled = "cancelled"
    undefined = "undefined"
    skipped_for_undefined = "skipped_for_undefined"
    non_compliant = "non_compliant"


class HandlerResourceState(str, Enum):
    """What a handler may report for the resource it deployed."""

    skipped = "skipped"
    deployed = "deployed"
    failed = "failed"
    dry = "dry"
    skipped_for_dependency = "skipped_for_dependency"
    unavailable = "unavailable"
    non_compliant = "non_compliant"


UNDEPLOYABLE_STATES = [ResourceState.undefined, ResourceState.skipped_for_undefined]
UNDEPLOYABLE_NAMES = [s.name for s in UNDEPLOYABLE_STATES]
TRANSIENT_STATES = [ResourceState.available, ResourceState.deploying]
NOT_DONE_STATES = TRANSIENT_STATES
DONE_STATES = [
    ResourceState.unavailable,
    ResourceState.skipped,
    ResourceState.deployed,
    ResourceState.failed,
    ResourceState.cancelled,
    ResourceState.non_compliant,
] + UNDEPLOYABLE_STATES
INITIAL_STATES = [ResourceState.available]
TERMINAL_STATES = UNDEPLOYABLE_STATES

UNKNOWN_STRING = "<<undefined>>"


class Change(str, Enum):
    nochange = "nochange"
    created = "created"
    purged = "purged"
    updated = "updated"


class VersionState(str, Enum):
    success = "success"
    failed = "failed"
    deploying = "deploying"
    pending = "pending"


class ResourceAction(str, Enum):
    store = "store"
    push = "push"
    pull = "pull"
    deploy = "deploy"
    dryrun = "dryrun"
    getfact = "getfact"
    other = "other"


STATE_UPDATE = [ResourceAction.deploy]


class LogLevel(str, Enum):
    CRITICAL = "CRITICAL"
    ERROR = "ERROR"
    WARNING = "WARNING"
    INFO = "INFO"
    DEBUG = "DEBUG"
    TRACE = "TRACE"

    @property
    def to_int(self) -> int:
        return LOG_LEVEL_AS_INTEGER[self]

    @classmethod
    def _missing_(cls, value: object) -> Optional["LogLevel"]:
        return INTEGER_AS_LOG_LEVEL.get(value) if isinstance(value, int) else None


LOG_LEVEL_TRACE = 3

LOG_LEVEL_AS_INTEGER = {
    LogLevel.CRITICAL: 50,
    LogLevel.ERROR: 40,
    LogLevel.WARNING: 30,
    LogLevel.INFO: 20,
    LogLevel.DEBUG: 10,
    LogLevel.TRACE: LOG_LEVEL_TRACE,
}
INTEGER_AS_LOG_LEVEL = {number: level for level, number in LOG_LEVEL_AS_INTEGER.items()}


class Compilestate(str, Enum):
    success = "success"
    failed = "failed"


class ParameterSource(str, Enum):
    fact = "fact"
    plugin = "plugin"
    user = "user"
    report = "report"


class ClientType(str, Enum):
    api = "api"
    agent = "agent"
    compiler = "compiler"


EXPORT_META_DATA = "export_metadata"
META_DATA_COMPILE_STATE = "inmanta:compile:state"
INMANTA_MT_HEADER = "X-Inmanta-tid"

PLUGINS_PACKAGE = "inmanta_plugins"
NAME_RESOURCE_ACTION_LOGGER = "inmanta.resource_action"
TIME_ISOFMT = "%Y-%m-%dT%H:%M:%S.%f"
TIME_LOGFMT = "%Y-%m-%d %H:%M:%S%z"

RESOURCE_ATTRIBUTE_SEND_EVENTS = "send_event"
RESOURCE_ATTRIBUTE_RECEIVE_EVENTS = "receive_events"
RESOURCE_ATTRIBUTE_REFERENCES = "references"
RESOURCE_ATTRIBUTE_MUTATORS = "mutators"
RESOURCE_ATTRIBUTE_REPORT_ONLY = "report_only"
