"""What the end-to-end scripts share: named checks that print PASS or FAIL and are counted, the
exit status that ctest reads, and throw-away project folders."""
import base64
import hashlib
import os
import sys
import tempfile
import zipfile

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


def make_wheel(folder, package, module, version, value=42):
    """A pure-Python wheel of `package` (import name `module`, whose VALUE is `value`), written by
    hand (no build tool, no index), into `folder`."""
    dist_info = f"{module}-{version}.dist-info"
    files = {
        f"{module}/__init__.py": f"VALUE = {value}\n",
        f"{dist_info}/METADATA": f"Metadata-Version: 2.1\nName: {package}\nVersion: {version}\n",
        f"{dist_info}/WHEEL": "Wheel-Version: 1.0\nGenerator: hand\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = []
    for name, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(text.encode())}")
    record.append(f"{dist_info}/RECORD,,")
    files[f"{dist_info}/RECORD"] = "\n".join(record) + "\n"
    os.makedirs(folder, exist_ok=True)
    with zipfile.ZipFile(os.path.join(folder, f"{module}-{version}-py3-none-any.whl"), "w") as whl:
        for name, text in files.items():
            whl.writestr(name, text)
