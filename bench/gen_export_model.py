#!/usr/bin/env python3
"""Writes a project whose export has about 10 resources per host (bench/run_export.sh)."""
import argparse
import os

parser = argparse.ArgumentParser()
parser.add_argument("--hosts", type=int, default=1000)
parser.add_argument("--out", required=True)
args = parser.parse_args()
os.makedirs(args.out, exist_ok=True)
with open(os.path.join(args.out, "project.yml"), "w") as fd:
    fd.write("name: bench\nmodulepath: libs\n")
lines = ["import std::testing"]
for h in range(args.hosts):
    lines.append(f'h{h} = std::Host(name="host{h}", os=std::linux)')
    lines.append(f'd{h} = std::DefaultDirectory(host=h{h}, path="/etc/app{h}")')
    for f in range(5):
        lines.append(f'std::ConfigFile(host=h{h}, path="/etc/app{h}/f{f}.conf", content="host {h} file {f}\\n")')
    lines.append(f'p{h} = std::Package(host=h{h}, name="pkg{h}", state="installed")')
    lines.append(f'std::Service(host=h{h}, name="svc{h}", state="running", onboot=true, requires=[p{h}, d{h}])')
    lines.append(f'std::Symlink(host=h{h}, source="/a{h}", target="/b{h}")')
    lines.append(f'std::testing::NullResource(name="n{h}")')
with open(os.path.join(args.out, "main.cf"), "w") as fd:
    fd.write("\n".join(lines) + "\n")
