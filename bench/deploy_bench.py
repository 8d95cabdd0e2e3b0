#!/usr/bin/env python3
"""`inmanta deploy` of a model of N std::File under a temporary folder (issue 31's targets for
10,000 files: the first deploy <= 2 s end to end, the unchanged re-run <= 1 s, a dry-run <= 1 s).

Each round starts from a fresh project store and target folder and times, as whole commands: the
first deploy (compile, export, store, writes, report), the unchanged re-run, and a dry-run. For
scale, the same round also times what the machine takes to write N small files with a temporary
file and a rename in the same folder (decision D9's way) from Python, without inmanta. Medians of
the rounds, with the phases `inmanta deploy -v` logs (export, release, deploy).

    deploy_bench.py path/to/inmanta [--files 10000] [--rounds 3] [--dir FOLDER]
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import tempfile
import time


def model(root, files):
    return (
        'host = std::Host(name="localhost", os=std::linux)\n'
        f'root = std::Directory(host=host, path="{root}", owner="{owner()}", group="{group()}", mode=755)\n'
        f"for i in std::sequence({files}):\n"
        f'    std::File(host=host, path="{root}/f{{{{i}}}}", owner="{owner()}", group="{group()}", mode=644,\n'
        '              content="file {{i}}\\n", requires=root)\n'
        "end\n"
    )


def owner():
    import pwd
    return pwd.getpwuid(os.getuid()).pw_name


def group():
    import grp
    return grp.getgrgid(os.getgid()).gr_name


PHASES = re.compile(r"(Exported version \d+ \(\d+ resources\)|Released and scheduled|Deployed) after ([0-9.]+) s")


def timed(command, cwd):
    started = time.monotonic()
    proc = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    seconds = time.monotonic() - started
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited {proc.returncode}:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    phases = {m.group(1).split(" (")[0]: float(m.group(2)) for m in PHASES.finditer(proc.stderr)}
    return seconds, phases


def raw_writes(folder, files):
    """N small files written to a temporary file in the same folder and renamed, from Python."""
    os.makedirs(folder)
    started = time.monotonic()
    for i in range(files):
        fd, temp = tempfile.mkstemp(dir=folder, prefix=f".f{i}.")
        os.write(fd, b"file %d\n" % i)
        os.fchmod(fd, 0o644)
        os.close(fd)
        os.rename(temp, os.path.join(folder, f"f{i}"))
    return time.monotonic() - started


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("inmanta")
    parser.add_argument("--files", type=int, default=10000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--dir", default=None,
                        help="where the rounds' folders go (default: the temporary folder); /dev/shm puts "
                             "project, store and files on tmpfs, which leaves out the disk")
    args = parser.parse_args()
    inmanta = os.path.abspath(args.inmanta)
    results = {"first": [], "rerun": [], "dry-run": [], "raw writes": []}
    phases = {"first": [], "rerun": []}
    # Every round's folders are removed only after the last round: on an ext4 file system without
    # a journal (as on these machines), creating a file right after many were deleted scans the
    # inodes deleted in the last minutes (the kernel's recently_deleted check), so a round that
    # followed the previous round's removal of 20,000 files took two to four times as long to
    # create its own, with inmanta as well as without it.
    works = []
    for _ in range(args.rounds):
        work = tempfile.mkdtemp(prefix="inmanta-deploy-bench-", dir=args.dir)
        works.append(work)
        project, target = os.path.join(work, "project"), os.path.join(work, "target")
        os.makedirs(project)
        with open(os.path.join(project, "project.yml"), "w") as fd:
            fd.write("name: bench\nmodulepath: libs\ndownloadpath: libs\nrepo: []\n")
        with open(os.path.join(project, "main.cf"), "w") as fd:
            fd.write(model(target, args.files))
        command = [inmanta, "--config-dir", os.path.join(work, "none"), "deploy", "-v"]
        seconds, first_phases = timed(command, project)
        results["first"].append(seconds)
        phases["first"].append(first_phases)
        seconds, rerun_phases = timed(command, project)
        results["rerun"].append(seconds)
        phases["rerun"].append(rerun_phases)
        results["dry-run"].append(timed(command + ["--dry-run"], project)[0])
        results["raw writes"].append(raw_writes(os.path.join(work, "raw"), args.files))
    for work in works:
        shutil.rmtree(work, ignore_errors=True)
    print(f"inmanta deploy of {args.files} std::File, median of {args.rounds} rounds (fresh store each round):")
    for name, values in results.items():
        print(f"  {name:<11} {statistics.median(values):6.2f} s   (runs: {', '.join(f'{v:.2f}' for v in values)})")
    for name, rounds in phases.items():
        keys = rounds[0].keys()
        text = ", ".join(f"{k.lower()} at {statistics.median(r.get(k, 0) for r in rounds):.2f} s" for k in keys)
        print(f"  {name} phases (from the module's start): {text}")


if __name__ == "__main__":
    main()
