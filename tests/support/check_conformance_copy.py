#!/usr/bin/env python3
"""tests/conformance must be an unchanged copy of ../shared/conformance (when that exists)."""
import filecmp
import os
import sys

ours, shared = sys.argv[1], sys.argv[2]
if not os.path.isdir(shared):
    print(f"{shared} is not here; nothing to compare")
    sys.exit(0)
diffs = []


def walk(cmp, prefix=""):
    for name in cmp.left_only:
        diffs.append(f"only in tests/conformance: {prefix}{name}")
    for name in cmp.right_only:
        diffs.append(f"missing from tests/conformance: {prefix}{name}")
    for name in cmp.diff_files + cmp.funny_files:
        diffs.append(f"differs: {prefix}{name}")
    for name, sub in cmp.subdirs.items():
        walk(sub, prefix + name + "/")


walk(filecmp.dircmp(ours, shared, ignore=["__pycache__"]))
for d in diffs:
    print(d)
sys.exit(1 if diffs else 0)
