#!/usr/bin/env bash
# Installs the Debian packages usdt-trace needs to build and test. Idempotent:
# packages already present are left alone, and apt is only called when
# something is missing. Needs root (it is run as root in CI and on the
# project's machines); without root it prints what to install and exits 1.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  libelf-dev libdw-dev libzstd-dev libboost-program-options-dev
  catch2 systemtap-sdt-dev
  binutils     # readelf, for the note cross-check test
  linux-perf   # perf, for benchmarks
  clang        # libFuzzer target for the trace reader; the clang builds of the operand fixtures;
               # the BPF capture program (clang -target bpf)
  libbpf-dev bpftool  # the BPF capture path: libbpf loads it, bpftool embeds it (a skeleton)
  bpftrace     # benchmarks: the in-kernel count() a BPF consumer is measured against
  lld          # integration_relro: a test program linked by lld, whose RELRO maps the semaphores twice
  git          # the revision --version reports and the package version carries
  dpkg-dev file  # cpack -G DEB: dpkg-shlibdeps computes the package's dependencies
  groff-base man-db bash-completion  # package test: man pages and completion of the installed tools
  chromium fonts-dejavu-core  # the browser checks (tests/browser/) and the pictures of docs/visualize.md
  pngquant  # the pictures of docs/visualize.md, made small (scripts/make-pictures.sh)
)
# Real programs the acceptance tests and the documentation's recipes trace
# (docs/recipes/, run by the docs_commands_* tests): PostgreSQL, Python,
# Ruby, PHP, OpenJDK 17's libjvm.so (500+ probe sites: also the readelf
# cross-check, readelf_libjvm), libc's debug information (named function
# parameters); and the ClickHouse server and client the round-trip test
# (integration_clickhouse) starts a throwaway server of. Set
# USDT_MINIMAL_DEPS=1 to skip.
if [ "${USDT_MINIMAL_DEPS:-0}" != 1 ]; then
  packages+=(postgresql-15 python3.11 libstdc++6 openjdk-17-jre-headless ruby3.1 php8.2-cli
    libc6-dbg clickhouse-server clickhouse-client)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

if [ "$(id -u)" != 0 ]; then
  echo "install-deps: error: missing packages: ${missing[*]}" >&2
  echo "hint: run as root, or: sudo apt-get install ${missing[*]}" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
