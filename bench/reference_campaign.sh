#!/usr/bin/env bash
# The campaign of issue 35: every search of ccl-sim held against the reference
# semantics on ccl-gen --litmus programs (each raw, with the rules' markers and
# with the minimal placement: three programs a seed), on every core. Prints the
# programs held, the reference's verdicts, each mode's "no conclusion" count, the
# schedules replayed, the per-feature coverage, the disagreements (each a line
# starting DISAGREEMENT; there must be none) and the time.
#
#   bash bench/reference_campaign.sh [SEEDS [FIRST]]    # default 6700 seeds from 0: 20,100 programs
set -euo pipefail
cd "$(dirname "$0")/.."
seeds="${1:-6700}"
first="${2:-0}"
CCLIR_CAMPAIGN_SEEDS="$seeds" CCLIR_CAMPAIGN_FIRST="$first" \
    cargo test --release --test sim_reference campaign -- --ignored --nocapture
