"""
Configuration of the compile as module code reads it: ``Config.get("config", "environment")``.

Values come from the compiler (``_inmanta_native.setting``: the ``.inmanta``/``.inmanta.cfg`` files,
``-c``, ``INMANTA_<SECTION>_<NAME>`` variables and command-line flags, as the C++ side resolves them),
then from what code set with ``Config.set``. Like the reference, reading an option of a section or
name nobody declared logs a warning, and a declared :class:`Option` parses its value (``config.
environment`` is a ``uuid.UUID``).
"""

import logging
import re
import typing
from collections import abc, defaultdict
from typing import Callable, Generic, Optional, TypeVar, Union

from inmanta import _native

LOGGER = logging.getLogger(__name__)

T = TypeVar("T")

_BOOLEAN_STATES = {"1": True, "yes": True, "true": True, "on": True, "0": False, "no": False, "false": False, "off": False}


def normalize_name(name: str) -> str:
    return name.replace("_", "-")


def _env_var_name(section: str, name: str) -> str:
    return f"INMANTA_{section}_{name}".replace("-", "_").replace(".", "_").upper()


class Config:
    """Read access to the settings of the compile (class methods only, like the reference)."""

    _overrides: dict[str, dict[str, str]] = defaultdict(dict)
    __definitions: dict[str, dict[str, "Option[object]"]] = defaultdict(dict)

    @classmethod
    def get_config_options(cls) -> dict[str, dict[str, "Option[object]"]]:
        return cls.__definitions

    @classmethod
    def load_config(cls, *args: object, **kwargs: object) -> None:
        """The compiler has loaded the configuration already."""

    @classmethod
    def _reset(cls) -> None:
        cls._overrides = defaultdict(dict)

    @classmethod
    def get(cls, section: Optional[str] = None, name: Optional[str] = None, default_value: Optional[object] = None) -> object:
        """The value of option ``name`` of ``section`` (parsed when the option is declared), else ``default_value``."""
        if section is None:
            return _ConfigView()
        assert name is not None
        name = normalize_name(name)
        option = cls.validate_option_request(section, name, default_value)
        if option is not None:
            return cls.get_for_option(option)
        return cls.get_raw_value(section, name, default_value)

    @classmethod
    def get_for_option(cls, option: "Option[T]") -> T:
        return option.parse(cls.get_raw_value(option.section, option.name, None))

    @classmethod
    def get_raw_value(cls, section: str, name: str, default_value: T) -> Union[str, T]:
        name = normalize_name(name)
        if name in cls._overrides.get(section, {}):
            return cls._overrides[section][name]
        try:
            value = _native.get().setting(section, name)
        except RuntimeError:
            value = None
        return value if value is not None else default_value

    @classmethod
    def is_set(cls, section: str, name: str) -> bool:
        return cls.get_raw_value(section, name, None) is not None

    @classmethod
    def getboolean(cls, section: str, name: str, default_value: Optional[bool] = None) -> bool:
        value = cls.get(section, name, default_value)
        if value is None:
            raise ValueError(f"Expected boolean value. Found: {value}")
        return is_bool(value)  # type: ignore[arg-type]

    @classmethod
    def set(cls, section: str, name: str, value: str) -> None:
        cls._overrides[section][normalize_name(name)] = value

    @classmethod
    def register_option(cls, option: "Option[typing.Any]") -> None:
        cls.__definitions[option.section][option.name] = option

    @classmethod
    def validate_option_request(cls, section: str, name: str, default_value: object) -> Optional["Option[typing.Any]"]:
        if section not in cls.__definitions:
            LOGGER.warning("Config section %s not defined", section)
            return None
        if name not in cls.__definitions[section]:
            LOGGER.warning("Config name %s not defined in section %s", name, section)
            return None
        option = cls.__definitions[section][name]
        if default_value is not None and option.get_default_value() != default_value:
            LOGGER.warning(
                "Inconsistent default value for option %s.%s: defined as %s, got %s",
                section,
                name,
                option.default,
                default_value,
            )
        return option


class _ConfigView:
    """What ``Config.get()`` without arguments returns: a minimal read-only ConfigParser look-alike."""

    def get(self, section: str, name: str, fallback: object = None, **kwargs: object) -> object:
        return Config.get_raw_value(section, name, fallback)

    def has_option(self, section: str, name: str) -> bool:
        return Config.is_set(section, name)

    def __contains__(self, section: object) -> bool:
        return isinstance(section, str) and (section in Config._overrides or section in Config.get_config_options())

    BOOLEAN_STATES = _BOOLEAN_STATES


# -- validators -----------------------------------------------------------------------------------------------------


def is_int(value: Union[str, int]) -> int:
    """int"""
    return int(value)


def is_float(value: Union[str, float]) -> float:
    """float"""
    return float(value)


def is_time(value: Union[str, int]) -> int:
    """Time, the number of seconds represented as an integer value"""
    return int(value)


def is_bool(value: Union[bool, str]) -> bool:
    """Boolean value, represented as any of true, false, on, off, yes, no, 1, 0. (Case-insensitive)"""
    if isinstance(value, bool):
        return value
    if value.lower() not in _BOOLEAN_STATES:
        raise ValueError("Not a boolean: %s" % value)
    return _BOOLEAN_STATES[value.lower()]


def is_list(value: Union[str, list[str]]) -> list[str]:
    """List of comma-separated values"""
    if isinstance(value, list):
        return value
    return [] if value == "" else [part.strip() for part in value.split(",")]


def is_map(map_in: Union[str, typing.Mapping[str, str]]) -> typing.Mapping[str, str]:
    """List of comma-separated key=value pairs"""
    if isinstance(map_in, abc.Mapping):
        return map_in
    result: dict[str, str] = {}
    for mapping in map_in.split(","):
        parts = re.split("=", mapping.strip(), maxsplit=1)
        if len(parts) == 2 and parts[0].strip() and parts[1].strip():
            result[parts[0].strip()] = parts[1].strip()
    return result


def is_str(value: object) -> str:
    """str"""
    return str(value)


def is_str_opt(value: Optional[object]) -> Optional[str]:
    """optional str"""
    return None if value is None else str(value)


def is_uuid_opt(value: Optional[Union[str, "uuid.UUID"]]) -> Optional["uuid.UUID"]:
    """optional uuid"""
    import uuid  # (here: importing it costs the start of every compile)

    if value is None or isinstance(value, uuid.UUID):
        return value
    return uuid.UUID(value)


def is_int_opt(value: Optional[Union[int, str]]) -> Optional[int]:
    """optional int"""
    return None if value is None else int(value)


class Option(Generic[T]):
    """A declared option: its section, name, default and how its text is parsed."""

    def __init__(
        self,
        section: str,
        name: str,
        default: Union[T, Callable[[], T]],
        documentation: str,
        validator: Callable[[typing.Any], T] = is_str,  # type: ignore[assignment]
        predecessor_option: Optional["Option[T]"] = None,
    ) -> None:
        self.section = section
        self.name = normalize_name(name)
        self.default = default
        self.documentation = documentation
        self.validator = validator
        self.predecessor_option = predecessor_option
        Config.register_option(self)

    def get_full_name(self) -> str:
        return f"{self.section}.{self.name}"

    def get_environment_variable(self) -> str:
        return _env_var_name(self.section, self.name)

    def get_raw(self) -> Optional[str]:
        raw = Config.get_raw_value(self.section, self.name, None)
        if raw is None and self.predecessor_option is not None:
            return self.predecessor_option.get_raw()
        return raw

    def get_default_value(self) -> T:
        return self.default() if callable(self.default) else self.default  # type: ignore[return-value]

    def validate(self, value: typing.Any) -> T:
        return self.validator(value)

    def parse(self, value: Optional[str]) -> T:
        return self.validate(value if value is not None else self.get_default_value())

    def get(self) -> T:
        return self.parse(self.get_raw())

    def set(self, value: str) -> None:
        Config.set(self.section, self.name, value)


# The options of the reference that compile-time code reads.
environment = Option("config", "environment", None, "The environment this model is associated with", is_uuid_opt)
export = Option("config", "export", "", "The list of exporters to use", is_list)
state_dir = Option("config", "state-dir", "/var/lib/inmanta", "The directory where state is stored", is_str)
log_dir = Option("config", "log-dir", "/var/log/inmanta", "The directory where logs are stored", is_str)

compiler_transport_host = Option("compiler_rest_transport", "host", "localhost", "Server host", is_str)
compiler_transport_port = Option("compiler_rest_transport", "port", 8888, "Server port", is_int)
compiler_transport_ssl = Option("compiler_rest_transport", "ssl", False, "Use SSL", is_bool)
compiler_transport_ca = Option("compiler_rest_transport", "ssl-ca-cert-file", None, "CA certificate", is_str_opt)
compiler_transport_token = Option("compiler_rest_transport", "token", None, "Authentication token", is_str_opt)
compiler_transport_timeout = Option("compiler_rest_transport", "request-timeout", 120, "Request timeout", is_time)
