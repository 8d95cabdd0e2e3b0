"""What the golden runners (tests/golden/run.py, tests/diagnostics/run.py) share: a compile's
output made independent of the machine, and the switch that rewrites goldens."""
import os
import re

# an absolute path to a folder modules/std: the bundled std module as the binary finds it (in its
# source tree or beside an installed binary), followed by the path of a file in it
_STD_DIR = re.compile(r"/(?:[^\s()'\"`/]+/)*modules/std(?=/)")


def normalise(text, project_dir=None):
    """`text` with the project folder written as <project> and the bundled std folder as <std>."""
    if project_dir:
        for d in sorted({project_dir, os.path.realpath(project_dir)}, key=len, reverse=True):
            text = text.replace(d, "<project>")
    std = os.environ.get("INMANTA_STD_PATH")
    if std:
        text = text.replace(std.rstrip("/"), "<std>")
    return _STD_DIR.sub("<std>", text)


def accepting():
    """True when INMANTA_TEST_ACCEPT=1: the runners then rewrite the goldens instead of comparing."""
    return os.environ.get("INMANTA_TEST_ACCEPT") == "1"
