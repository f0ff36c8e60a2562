#!/usr/bin/env bash
# Installs what cclir needs to build and test on a fresh Debian machine:
# MLIR/LLVM 22 (headers, static libraries, mlir-opt, FileCheck), what they need
# to link, libclang for bindgen, LLVM's `lit` runner, Spin with the C compiler
# its verifiers are built with (bench/promela/, the benchmark peer of ccl-sim),
# and Python's venv (the Python package is built and tested in a virtualenv).
# Safe to run again.
set -euo pipefail

LLVM_PREFIX=/usr/lib/llvm-22
PACKAGES=(
  libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools
  libpolly-22-dev libclang-22-dev clang-22
  libzstd-dev libz3-dev libxml2-dev zlib1g-dev libffi-dev libedit-dev libcurl4-openssl-dev
  spin gcc python3-venv
)

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

missing=()
for pkg in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done

if [ "${#missing[@]}" -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# lit: Debian's llvm-22-tools ships lit's sources but not always a `lit` command on PATH.
if ! command -v lit >/dev/null 2>&1 && [ ! -x "$LLVM_PREFIX/bin/lit" ] && [ ! -x "$LLVM_PREFIX/build/utils/lit/lit.py" ]; then
  python3 -m pip install --quiet lit
fi

for tool in mlir-opt FileCheck; do
  [ -x "$LLVM_PREFIX/bin/$tool" ] || { echo "install-deps: $LLVM_PREFIX/bin/$tool is missing after install" >&2; exit 1; }
done
for tool in spin gcc; do
  command -v "$tool" >/dev/null 2>&1 || { echo "install-deps: $tool is missing after install" >&2; exit 1; }
done
echo "install-deps: MLIR 22 is ready in $LLVM_PREFIX" >&2
