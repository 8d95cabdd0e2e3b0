"""What the end-to-end scripts share: named checks that print PASS or FAIL and are counted, the
exit status that ctest reads, and throw-away project folders."""
import os
import sys
import tempfile

failures = []


def check(name, condition, detail=""):
    if not condition:
        failures.append(f"{name}: {detail}")
        print(f"FAIL {name}: {detail}")
    else:
        print(f"PASS {name}")


def finish():
    print(f"{len(failures)} failures")
    sys.exit(1 if failures else 0)


def project(files, prefix="inmanta-e2e-"):
    """A new temporary folder holding `files` (relative path -> text); returns its path."""
    d = tempfile.mkdtemp(prefix=prefix)
    for path, text in files.items():
        full = os.path.join(d, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as fd:
            fd.write(text)
    return d
