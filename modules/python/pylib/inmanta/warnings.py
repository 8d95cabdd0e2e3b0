"""Warnings meant for the user of the compiler (shown as one log line, without a Python trace)."""

import logging
import warnings as _py_warnings
from typing import Optional, TextIO, Union


class InmantaWarning(Warning):
    """Base class of the warnings shown to end users."""

    def __init__(self, *args: object) -> None:
        Warning.__init__(self, *args)


# Warnings raised from code of these Python modules are shown; others are ignored, as the reference does.
REGEX_INMANTA_MODULE = r"^(inmanta|inmanta\..*|inmanta_.*)$"


def _show(
    message: Union[str, Warning],
    category: type,
    filename: str,
    lineno: int,
    file: Optional[TextIO] = None,
    line: Optional[str] = None,
) -> None:
    if issubclass(category, InmantaWarning):
        logging.getLogger("inmanta.warnings").warning("%s", f"{category.__name__}: {message}")
    else:
        text = _py_warnings.formatwarning(message, category, filename, lineno, line)  # type: ignore[arg-type]
        logging.getLogger("py.warnings").warning("%s", text)


def install() -> None:
    """Route warnings to the log the way the reference's CLI does: Inmanta ones shown, the rest ignored."""
    _py_warnings.showwarning = _show
    _py_warnings.filterwarnings("ignore")
    _py_warnings.filterwarnings("default", module=REGEX_INMANTA_MODULE)


def warn(*args: object, **kwargs: object) -> None:
    _py_warnings.warn(*args, **kwargs)  # type: ignore[arg-type]


