"""
The project and its modules, as far as plugin code asks about them (``Project.get().modules``,
``project_path``). inmanta-cpp loads projects in C++; this answers through the compiler.
"""

import os
from collections.abc import Iterator, Mapping
from typing import Optional

from inmanta import _native


class InvalidModuleException(Exception):
    pass


class ModuleNotFoundException(Exception):
    pass


class Module:
    """A loaded module: its name and folder (``_path``)."""

    def __init__(self, name: str, path: str) -> None:
        self.name = name
        self._path = path

    @property
    def path(self) -> str:
        return self._path

    def get_plugin_dir(self) -> Optional[str]:
        plugins = os.path.join(self._path, "plugins")
        return plugins if os.path.isdir(plugins) else None

    def __repr__(self) -> str:
        return f"Module({self.name}, {self._path})"


ModuleV1 = Module


class _Modules(Mapping[str, Module]):
    """Name -> :class:`Module` for the modules of the compile (looked up through the compiler)."""

    def __getitem__(self, name: str) -> Module:
        folder = _native.get().module_dir(name)
        if folder is None:
            raise KeyError(name)
        return Module(name, folder)

    def __iter__(self) -> Iterator[str]:
        from inmanta import _host

        return iter(_host.loaded_module_names())

    def __len__(self) -> int:
        return len(list(iter(self)))

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and _native.get().module_dir(name) is not None


class Project:
    """The project being compiled (``Project.get()``)."""

    _instance: Optional["Project"] = None

    def __init__(self) -> None:
        self.modules: Mapping[str, Module] = _Modules()

    @classmethod
    def get(cls) -> "Project":
        if cls._instance is None:
            cls._instance = Project()
        return cls._instance

    @property
    def project_path(self) -> str:
        return _native.get().project_dir()

    def get_project_path(self) -> str:
        return self.project_path
