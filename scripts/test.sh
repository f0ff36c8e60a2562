#!/usr/bin/env bash
# Installs what cclir needs and runs every test: Rust unit and integration
# tests, snapshot tests, property tests and the lit suite (tests/lit.rs runs
# LLVM's lit over lit-tests/).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
command -v cargo >/dev/null || { echo "test: cargo is missing: install the Rust toolchain (rustup)" >&2; exit 1; }
cargo test --workspace "$@"
