#!/usr/bin/env bash
# The build's own costs, measured on a fresh clone of a commit (default
# HEAD) with an empty target directory: the cold `cargo build --release`
# and `cargo build` times, the sizes of the binaries, of the dialect
# plugin and of the target directory, and the time to rebuild after
# one-line edits to a Rust pass and after touching the dialect's C++ glue.
#
#   bash bench/build_cost.sh [--no-release] [--edits N] [--timings DIR] [COMMIT]
#
#   --no-release   skip the cold release build and the release sizes (the
#                  debug build is the one a change to the crates moves)
#   --edits N      rebuild after N one-line pass edits, each timed (default 1)
#   --timings DIR  build the cold debug build with `--timings` and keep its
#                  report in DIR (the clone is removed at the end)
#
# The numbers are wall times, and each line ends with the load average it
# started at: compare commits by running them back to back.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
release=1 edits=1 timings=""
while [ $# -gt 0 ]; do
    case "$1" in
        --no-release) release=0 ;;
        --edits) edits="$2"; shift ;;
        --timings) timings="$(mkdir -p "$2" && cd "$2" && pwd)"; shift ;;
        -*) echo "build_cost.sh: unknown option $1" >&2; exit 2 ;;
        *) break ;;
    esac
    shift
done
commit="${1:-HEAD}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
git clone --quiet "$repo" "$work/src"
git -C "$work/src" checkout --quiet "$commit"
cd "$work/src"
seconds() {
    local start=$SECONDS load status=""
    load="$(cut -d' ' -f1 /proc/loadavg)"
    "$@" >"$work/log" 2>&1 || status=", FAILED: $(tail -1 "$work/log")"
    echo "$((SECONDS - start)) s (load $load$status)"
}
echo "commit: $(git log --oneline -1 | cut -c1-72)"
if [ "$release" = 1 ]; then
    echo "cold release build: $(seconds cargo build --release --bins)"
    for binary in ccl-opt ccl-gen; do
        [ -f "target/release/$binary" ] && echo "size of $binary: $(du -h "target/release/$binary" | cut -f1) (stripped: $(strip -o "$work/stripped" "target/release/$binary" && du -h "$work/stripped" | cut -f1))"
    done
    [ -f target/release/libccl_dialect_plugin.so ] && echo "size of libccl_dialect_plugin.so: $(du -h target/release/libccl_dialect_plugin.so | cut -f1)"
fi
echo "cold debug build: $(seconds cargo build --bins ${timings:+--timings})"
[ -n "$timings" ] && cp target/cargo-timings/cargo-timing.html "$timings/$(git rev-parse --short HEAD)-$(date +%H%M%S).html"
pass_file="$(ls passes/src/insert_comm_fence/mod.rs 2>/dev/null || ls passes/src/*.rs | head -1)"
for edit in $(seq "$edits"); do
    echo "// a one-line edit ($edit)" >>"$pass_file"
    echo "debug rebuild after a one-line edit to $pass_file: $(seconds cargo build --bins)"
done
glue="$(ls dialect-glue/cpp/CclDialect.cpp dialect/cpp/CclDialect.cpp src/mlir/cpp/CclDialect.cpp 2>/dev/null | head -1 || true)"
if [ -n "$glue" ]; then
    touch "$glue"
    echo "debug rebuild after touching $glue: $(seconds cargo build --bins)"
fi
echo "size of target/: $(du -sh target | cut -f1)"
