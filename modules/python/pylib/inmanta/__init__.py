"""
inmanta-cpp's own ``inmanta`` package: the Python API that the ``plugins/`` code of Inmanta modules
imports (``from inmanta.plugins import plugin``), written for the embedded CPython of inmanta-cpp.

The compiler itself is C++; this package only gives module code the names and the behaviour it
expects from inmanta-core 19. ``inmanta._host`` is the side the C++ code calls (see CONTRACT.md).
"""

__version__ = "19.0.0"

RUNNING_TESTS = False
