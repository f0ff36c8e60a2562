#!/usr/bin/env bash
# Installs what cclir needs, builds ccl-opt, and runs the default pipeline on
# the MoE dispatch example shipped in examples/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
command -v cargo >/dev/null || { echo "run-example: cargo is missing: install the Rust toolchain (rustup)" >&2; exit 1; }
cargo build --release --quiet --bin ccl-opt
exec ./target/release/ccl-opt examples/moe_dispatch.mlir --pass-pipeline='builtin.module(ccl-pipeline)' "$@"
