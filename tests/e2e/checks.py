"""What the end-to-end scripts share: named checks that print PASS or FAIL and are counted, and
the exit status that ctest reads."""
import sys

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
