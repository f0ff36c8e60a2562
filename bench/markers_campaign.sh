#!/usr/bin/env bash
# The campaign of issue 36: the markers held against the reference semantics on
# ccl-gen --litmus programs. Per seed: the raw program, the rules' placement, the
# minimal placement, each placement with one marker dropped at random and the
# rules' with one added (six programs a seed); for each, ccl-verify-comm-order's
# verdict against the reference's exhaustive search. Prints the counts (a)-(e) of
# tests/markers_reference.rs, the per-variant table, the per-feature coverage,
# each failure (lines starting UNSOUND, MINIMAL-WORSE, INVALID, NOT-FIXED) and
# the time.
#
#   nice bash bench/markers_campaign.sh [SEEDS [FIRST [THREADS [SECONDS]]]]
#       default 3400 seeds from 0 (about 20,000 programs) on 2 threads; with
#       SECONDS, no new seed after that many seconds (the counts say how many ran)
set -euo pipefail
cd "$(dirname "$0")/.."
seeds="${1:-3400}"
first="${2:-0}"
threads="${3:-2}"
seconds="${4:-}"
CCLIR_MARKERS_CAMPAIGN_SEEDS="$seeds" CCLIR_MARKERS_CAMPAIGN_FIRST="$first" CCLIR_MARKERS_CAMPAIGN_THREADS="$threads" \
    CCLIR_MARKERS_CAMPAIGN_SECONDS="$seconds" \
    cargo test --release --test markers_reference markers_campaign -- --ignored --nocapture
