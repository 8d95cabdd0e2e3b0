#!/usr/bin/env python3
"""A throw-away PostgreSQL server for the tests (Debian's postgresql-15 binaries).

Usage: pg_cluster.py start DIR   initdb + pg_ctl start on a free port of 127.0.0.1, trust auth;
                                 writes the libpq connection string to DIR/conninfo and prints it
       pg_cluster.py stop DIR    stops the server and removes its data

The data folder lives under /tmp (a path the unprivileged user can reach) and DIR/datadir names
it. PostgreSQL refuses to run as root, so when run as root the server runs as `nobody`. Each build
tree passes its own DIR, so several trees run their own servers at once.
"""
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile

BIN = os.environ.get("INMANTA_PG_BIN", "/usr/lib/postgresql/15/bin")
USER = "nobody"


def as_server_user(cmd):
    if os.geteuid() == 0:
        return ["runuser", "-u", USER, "--"] + cmd
    return cmd


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop(state_dir):
    datadir_file = os.path.join(state_dir, "datadir")
    if not os.path.exists(datadir_file):
        return 0
    with open(datadir_file) as f:
        data = f.read().strip()
    if os.path.isdir(data):
        subprocess.run(as_server_user([os.path.join(BIN, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop"]),
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(os.path.dirname(data), ignore_errors=True)
    for name in ("datadir", "conninfo"):
        try:
            os.remove(os.path.join(state_dir, name))
        except FileNotFoundError:
            pass
    return 0


def start(state_dir):
    os.makedirs(state_dir, exist_ok=True)
    stop(state_dir)  # a server left behind by an interrupted run
    root = tempfile.mkdtemp(prefix="inmanta-pg-")
    data = os.path.join(root, "data")
    if os.geteuid() == 0:
        pw = pwd.getpwnam(USER)
        os.chown(root, pw.pw_uid, pw.pw_gid)
    with open(os.path.join(state_dir, "datadir"), "w") as f:
        f.write(data + "\n")
    init = subprocess.run(as_server_user([os.path.join(BIN, "initdb"), "-D", data, "-U", "postgres", "--auth=trust",
                                          "-E", "UTF8", "--no-sync"]),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if init.returncode != 0:
        print(init.stdout, file=sys.stderr)
        print("initdb failed", file=sys.stderr)
        return 1
    # The port is free when chosen; another tree may take it before the server binds it: retry.
    for _ in range(5):
        port = free_port()
        # fsync off: the tests never crash PostgreSQL itself, only our processes
        options = f"-p {port} -k {data} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"
        run = subprocess.run(as_server_user([os.path.join(BIN, "pg_ctl"), "-D", data, "-l",
                                             os.path.join(root, "server.log"), "-o", options, "-w", "start"]),
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if run.returncode == 0:
            conninfo = f"host=127.0.0.1 port={port} user=postgres dbname=postgres"
            with open(os.path.join(state_dir, "conninfo"), "w") as f:
                f.write(conninfo + "\n")
            print(conninfo)
            return 0
    log = os.path.join(root, "server.log")
    if os.path.exists(log):
        print(open(log).read(), file=sys.stderr)
    print("pg_ctl start failed", file=sys.stderr)
    return 1


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("start", "stop"):
        print(__doc__, file=sys.stderr)
        return 2
    return start(sys.argv[2]) if sys.argv[1] == "start" else stop(sys.argv[2])


if __name__ == "__main__":
    sys.exit(main())
