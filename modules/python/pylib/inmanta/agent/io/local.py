"""File and command access on the local host, the API handlers reach as ``self._io``."""

import grp
import hashlib
import os
import pwd
import shutil
import subprocess
from typing import Optional


class LocalIO:
    def __init__(self, uri: str = "local:", config: object = None) -> None:
        self.uri = uri
        self.config = config

    def is_remote(self) -> bool:
        return False

    def close(self) -> None:
        pass

    def run(
        self,
        command: str,
        arguments: list[str] = [],
        env: Optional[dict[str, str]] = None,
        cwd: Optional[str] = None,
        timeout: Optional[int] = None,
    ) -> tuple[str, str, int]:
        """Run a command; returns (stdout, stderr, exit code) with the output stripped."""
        done = subprocess.run(
            [command] + list(arguments), env=env, cwd=cwd, timeout=timeout, capture_output=True, check=False
        )
        return done.stdout.decode(errors="replace").strip(), done.stderr.decode(errors="replace").strip(), done.returncode

    def file_exists(self, path: str) -> bool:
        return os.path.lexists(path)

    def hash_file(self, path: str) -> str:
        with open(path, "rb") as fd:
            return hashlib.sha1(fd.read()).hexdigest()

    def read(self, path: str) -> str:
        with open(path, encoding="utf-8") as fd:
            return fd.read()

    def read_binary(self, path: str) -> bytes:
        with open(path, "rb") as fd:
            return fd.read()

    def put(self, path: str, content: bytes) -> None:
        with open(path, "wb") as fd:
            fd.write(content)

    def file_stat(self, path: str) -> dict[str, object]:
        stat = os.stat(path)
        return {
            "owner": pwd.getpwuid(stat.st_uid).pw_name,
            "group": grp.getgrgid(stat.st_gid).gr_name,
            "permissions": int(oct(stat.st_mode)[-4:]),
        }

    def chown(self, path: str, user: Optional[str] = None, group: Optional[str] = None) -> None:
        shutil.chown(path, user, group)

    def chmod(self, path: str, permissions: str) -> None:
        os.chmod(path, int(str(permissions), 8))

    def mkdir(self, path: str) -> None:
        os.mkdir(path)

    def rmdir(self, path: str) -> None:
        shutil.rmtree(path)

    def remove(self, path: str) -> None:
        os.remove(path)

    def is_symlink(self, path: str) -> bool:
        return os.path.islink(path)

    def readlink(self, path: str) -> str:
        return os.readlink(path)

    def symlink(self, source: str, target: str) -> None:
        os.symlink(source, target)
