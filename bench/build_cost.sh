#!/usr/bin/env bash
# The build's own costs, measured on a fresh clone of a commit (default
# HEAD) with an empty target directory: the cold `cargo build --release`
# and `cargo build` times, the sizes of the binaries, of the dialect
# plugin and of the target directory, and the time to rebuild after a
# one-line edit to a Rust pass and after touching the dialect's C++ glue.
#
#   bash bench/build_cost.sh [COMMIT]
#
# The numbers are wall times, and each line ends with the load average it
# started at: compare commits by running them back to back.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
commit="${1:-HEAD}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
git clone --quiet "$repo" "$work/src"
git -C "$work/src" checkout --quiet "$commit"
cd "$work/src"
seconds() { local start=$SECONDS; "$@" >/dev/null 2>&1; echo "$((SECONDS - start)) s (load $(cut -d' ' -f1 /proc/loadavg))"; }
echo "commit: $(git log --oneline -1)"
echo "cold release build: $(seconds cargo build --release --bins)"
for binary in ccl-opt ccl-gen; do
    [ -f "target/release/$binary" ] && echo "size of $binary: $(du -h "target/release/$binary" | cut -f1) (stripped: $(strip -o "$work/stripped" "target/release/$binary" && du -h "$work/stripped" | cut -f1))"
done
[ -f target/release/libccl_dialect_plugin.so ] && echo "size of libccl_dialect_plugin.so: $(du -h target/release/libccl_dialect_plugin.so | cut -f1)"
echo "cold debug build: $(seconds cargo build --bins)"
pass_file="$(ls passes/src/insert_comm_fence/mod.rs 2>/dev/null || ls passes/src/*.rs | head -1)"
echo "// a one-line edit" >>"$pass_file"
echo "debug rebuild after a one-line edit to $pass_file: $(seconds cargo build --bins)"
glue="$(ls dialect/cpp/CclDialect.cpp src/mlir/cpp/CclDialect.cpp 2>/dev/null | head -1 || true)"
if [ -n "$glue" ]; then
    touch "$glue"
    echo "debug rebuild after touching $glue: $(seconds cargo build --bins)"
fi
echo "size of target/: $(du -sh target | cut -f1)"
