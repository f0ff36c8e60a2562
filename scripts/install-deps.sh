#!/usr/bin/env bash
# Installs what cclir needs to build and test on a fresh Debian machine:
# MLIR/LLVM 22 (headers, the shared libMLIR.so and libLLVM.so, mlir-opt,
# FileCheck) with MLIR's C API as the shared libMLIR-C.so (linked here: see
# below), what they need to link, libclang for bindgen, LLVM's `lit` runner,
# Spin with the C compiler its verifiers are built with (bench/promela/, the
# benchmark peer of ccl-sim), and Python's venv (the Python package is built
# and tested in a virtualenv).
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
# MLIR's C API as one shared library, libMLIR-C.so, beside libMLIR.so: what
# upstream builds with MLIR_BUILD_MLIR_C_DYLIB, and what mlir-sys links in its
# shared mode (MLIR_SYS_LINK_SHARED, .cargo/config.toml). Debian ships the C
# API only as static archives; linked statically, every test and tool
# executable carried its own copy of MLIR and LLVM (about 310 MB in a debug
# build; a full test run needed over 30 GB of disk). Linked again on every
# run (about a second) and replaced only when the result differs, so an
# upgraded MLIR never meets a stale C API.
capi_soname="libMLIR-C.so.22.1"
capi_lib="$LLVM_PREFIX/lib/$capi_soname"
capi_tmp="$(mktemp /tmp/libMLIR-C.XXXXXX.so)"
trap 'rm -f "$capi_tmp"' EXIT
"$LLVM_PREFIX/bin/clang++" -shared -o "$capi_tmp" -Wl,-soname,"$capi_soname" \
  -Wl,--whole-archive "$LLVM_PREFIX"/lib/libMLIRCAPI*.a -Wl,--no-whole-archive \
  -L"$LLVM_PREFIX/lib" -lMLIR -lLLVM -Wl,-rpath,"$LLVM_PREFIX/lib" -Wl,--no-undefined
if ! cmp -s "$capi_tmp" "$capi_lib"; then
  # A new file renamed over the old one: a process using the old one keeps it.
  $SUDO install -m 0644 "$capi_tmp" "$capi_lib.new"
  $SUDO mv -f "$capi_lib.new" "$capi_lib"
  echo "install-deps: linked $capi_lib" >&2
fi
$SUDO ln -sfn "$capi_soname" "$LLVM_PREFIX/lib/libMLIR-C.so"

for tool in spin gcc; do
  command -v "$tool" >/dev/null 2>&1 || { echo "install-deps: $tool is missing after install" >&2; exit 1; }
done
echo "install-deps: MLIR 22 is ready in $LLVM_PREFIX" >&2
