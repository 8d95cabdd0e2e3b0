#!/usr/bin/env bash
# Installs every Debian (bookworm) package inmanta-cpp needs to build, test and run.
# Idempotent: packages already present are left as they are. Run as root.
set -euo pipefail
packages=(
  build-essential g++ cmake ninja-build ccache pkg-config git python3
  antlr4 default-jre-headless libantlr4-runtime-dev
  libcli11-dev nlohmann-json3-dev libgit2-dev libsqlite3-dev
  libspdlog-dev libfmt-dev libgtest-dev libgmock-dev googletest libbenchmark-dev
  libcpp-httplib-dev libssl-dev libpq-dev libyaml-cpp-dev libpcre2-dev libxxhash-dev libicu-dev libmimalloc-dev
  pybind11-dev libpython3.11-dev python3-jinja2
  # the server side (embedded/): SQLite and PostgreSQL stores (the tests start a real PostgreSQL
  # from Debian's server package), HS256 tokens, unified diffs of files
  postgresql libjwt-dev libdtl-dev
  # `inmanta project install` runs the system's pip in the project's .env (made --without-pip, as
  # the reference makes its environments) to install the modules' requirements.txt
  python3-pip
  # Python packages that common modules' plugins import (ip: netaddr; yaml: PyYAML), which the
  # compile's embedded Python takes from the system as the reference takes them from its venv
  python3-netaddr python3-yaml
  # the ctests `format` and `clang_tidy` (.clang-format, .clang-tidy): bookworm's version 14
  clang-format clang-tidy
  # loaded with dlopen() on first use rather than linked (the -dev packages above depend on them):
  # libgit2 by the installer, cpp-httplib/OpenSSL by libinmanta_rest.so, the ANTLR runtime by
  # libinmanta_antlr.so
  libgit2-1.5 libcpp-httplib0.11 libssl3 libantlr4-runtime4.9
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
