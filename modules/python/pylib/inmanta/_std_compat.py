"""
``inmanta_plugins.std`` for the Python code of other modules.

inmanta-cpp builds the std module into the compiler (its plugins are C++), so its Python package is
never loaded. Some modules import helpers from it (``from inmanta_plugins.std import
get_file_content`` in ``yaml``); this module provides those helpers, written for inmanta-cpp. It
defines no plugins: std's plugins are the compiler's.
"""

import os

from inmanta.execute.proxy import DynamicProxy  # noqa: F401


def _extend_path(ctx, path: str) -> str:  # type: ignore[no-untyped-def]
    """``./file`` is a file of the module whose plugin is running."""
    prefix = "." + os.path.sep
    if path.startswith(prefix):
        module = ctx.owner.namespace.get_full_name().split("::")[0]
        return os.path.join(module, path[len(prefix) :])
    return path


def determine_path(ctx, module_dir: str, path: str) -> str:  # type: ignore[no-untyped-def]
    """``module/rest`` -> ``<folder of module>/<module_dir>/rest``; ``/rest`` is relative to the project."""
    from inmanta import _native

    path = _extend_path(ctx, path)
    parts = path.split(os.path.sep)
    if parts[0] == "":
        base = _native.get().project_dir()
    else:
        base = _native.get().module_dir(parts[0])
        if base is None:
            raise Exception("Module %s does not exist for path %s" % (parts[0], path))
    return os.path.join(base, module_dir, os.path.sep.join(parts[1:]))


def get_file_content(ctx, module_dir: str, path: str) -> str:  # type: ignore[no-untyped-def]
    """The text of a file of a module (``std::source`` and ``std::file`` use the same convention)."""
    filename = determine_path(ctx, module_dir, path)
    if not os.path.isfile(filename):
        raise Exception("%s isn't a valid file (%s)" % (path, filename))
    with open(filename, "r") as fd:
        return fd.read()


class FileMarker(str):
    """A string that stands for a file on disk (``std::file``)."""

    def __new__(cls, filename: str) -> "FileMarker":
        obj = str.__new__(cls, "imp-module-source:file://" + filename)
        obj.filename = filename  # type: ignore[attr-defined]
        return obj
