#!/usr/bin/env python3
"""ccl-sim and Spin side by side on the lowered all_to_all_v protocol.

For each size (P ranks, B blocks) it runs, on the same protocol under the
same semantics (docs/ccl-sim.md, "The Promela model"):
  * ccl-sim --exhaustive on `ccl-gen --all-to-all-v P,B` lowered by
    ccl-pipeline{lower-collectives=true} (the snapshot order), and on the
    old order (ccl-lower-all-to-all-v{late-snapshot=true});
  * Spin on bench/promela/all_to_all_v.pml with -DP, -DB and -DLATE=0 or 1:
    spin -a, gcc -O2 -DSAFETY (partial-order reduction on, exhaustive, no
    bitstate), ./pan.
Each run has a time limit and an address-space limit; it reports the
verdict, states, seconds and peak RSS of each tool and order, prints a
Markdown table (the one in docs/benchmarks.md) and writes
bench/spin_results.json. A run stopped by a limit is "time limit" or
"memory limit": no conclusion, never "no race".

    python3 bench/spin_bench.py                  # P = 2 (B = 1, 2, 4), P = 3 (B = 1, 3), P = 4 (B = 4, 8)
    python3 bench/spin_bench.py --quick          # P = 2 only, 60 s a run
    python3 bench/spin_bench.py --sizes 3,3 4,4 --timeout 300 --max-memory 20

It needs the release build (cargo build --release) and spin and gcc
(scripts/install-deps.sh). Use one core: the runs are sequential.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from sim_runs import BIN, LOWER, LOWER_LATE, ROOT, lowered_protocol, run_limited, simulate

MODEL = os.path.join(ROOT, "bench", "promela", "all_to_all_v.pml")
TABLE_SIZES = [(2, 1), (2, 2), (2, 4), (3, 1), (3, 3), (4, 4), (4, 8)]
QUICK_SIZES = [(2, 1), (2, 2), (2, 4)]
# Lossless state compression a Spin user would turn on (README.md in bench/promela/).
COMPRESSION = {"none": [], "collapse": ["-DCOLLAPSE"], "ma": None}

STORED = re.compile(r"(\d+) states, stored")
VECTOR = re.compile(r"State-vector (\d+) byte")
ERRORS = re.compile(r"errors: (\d+)")
VIOLATED = re.compile(r"pan:\d+: (assertion violated .*?) \(at depth")


def compile_pan(directory, flags, optimize="-O2"):
    pan = os.path.join(directory, "pan")
    subprocess.run(["gcc", optimize, "-DSAFETY", *flags, "-o", pan, "pan.c"], cwd=directory, check=True,
                   capture_output=True)
    return pan


def build_pan(directory, p, b, late, compression, max_memory):
    """spin -a and gcc for one size and order; returns the verifier's path."""
    subprocess.run(["spin", "-a", f"-DP={p}", f"-DB={b}", f"-DLATE={int(late)}", MODEL], cwd=directory,
                   check=True, capture_output=True)
    # The state vector's size, from a first verifier stopped at depth 1.
    probe = subprocess.run([compile_pan(directory, ["-DVECTORSZ=65536"], "-O0"), "-m1"], cwd=directory,
                           capture_output=True, text=True).stdout
    vector = int(VECTOR.search(probe).group(1))
    flags = COMPRESSION[compression]
    if flags is None:
        flags = [f"-DMA={vector}"]
    return compile_pan(directory, [f"-DVECTORSZ={vector + 64}", f"-DMEMLIM={max_memory // 2**20 - 256}", *flags])


def verify(pan, timeout, max_memory, hash_bits):
    """One ./pan run: a dict of outcome, states, seconds, peak RSS."""
    code, text, seconds, peak = run_limited([pan, "-m100000", f"-w{hash_bits}"], timeout, max_memory,
                                            cwd=os.path.dirname(pan))
    result = {"seconds": seconds, "peak_mib": peak}
    stored = STORED.search(text)
    result["states"] = int(stored.group(1)) if stored else None
    if VECTOR.search(text):
        result["state_vector_bytes"] = int(VECTOR.search(text).group(1))
    violated = VIOLATED.search(text)
    if code is None:
        result.update(outcome=f"time limit ({timeout:.0f} s)", states=None)
    elif "reached -DMEMLIM bound" in text or "out of memory" in text:
        result.update(outcome="memory limit", states=None)
    elif "max search depth too small" in text:
        result.update(outcome="depth limit", states=None)
    elif violated:
        # The assertion names what it found: race_..., deadlock or model_bound.
        found = violated.group(1)
        outcome = "race" if "race_" in found else "deadlock" if "deadlock" in found else "model bound exceeded"
        result.update(outcome=outcome, assertion=found)
    elif "invalid end state" in text and ERRORS.search(text) and ERRORS.search(text).group(1) != "0":
        result.update(outcome="deadlock")
    elif code == 0 and ERRORS.search(text) and ERRORS.search(text).group(1) == "0":
        result.update(outcome="no race")
    else:
        sys.exit(f"spin_bench: {pan} exited {code}:\n{text[:2000]}")
    return result


def verdict(run):
    states = "-" if run["states"] is None else f"{run['states']:,}"
    return f"{run['outcome']}, {states} states"


def cell(run):
    return f"{verdict(run)}, {run['seconds']:.2f} s, {run['peak_mib']:,.0f} MiB"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="P = 2 only, 60 s a run")
    parser.add_argument("--sizes", nargs="*", metavar="P,B", help="sizes to run (default: the table's)")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds a run (default 1800)")
    parser.add_argument("--max-memory", type=float, default=20.0, help="GiB a run (default 20)")
    parser.add_argument("--compression", choices=sorted(COMPRESSION), default="collapse",
                        help="Spin's lossless state compression (default collapse)")
    parser.add_argument("--hash-bits", type=int, help="pan -w (default: 20 where the space is known to be "
                        "small, P = 2 and P = 3 with B = 1; else 27)")
    parser.add_argument("--por", choices=["on", "off", "dpor"], default="on",
                        help="ccl-sim's partial-order reduction (--por; default on, ccl-sim's default)")
    parser.add_argument("--output", default=os.path.join(ROOT, "bench", "spin_results.json"))
    args = parser.parse_args()
    sizes = QUICK_SIZES if args.quick else TABLE_SIZES
    if args.quick:
        args.timeout = min(args.timeout, 60.0)
    if args.sizes:
        sizes = [tuple(int(x) for x in size.split(",")) for size in args.sizes]
    for tool in ["ccl-gen", "ccl-opt", "ccl-sim"]:
        if not os.access(os.path.join(BIN, tool), os.X_OK):
            sys.exit(f"spin_bench: {BIN}/{tool} is missing: run cargo build --release first")
    for tool in ["spin", "gcc"]:
        if not shutil.which(tool):
            sys.exit(f"spin_bench: {tool} is missing: run scripts/install-deps.sh first")
    max_memory = int(args.max_memory * 2**30)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for p, b in sizes:
            row = {"ranks": p, "blocks": b}
            for late, pipeline in [(False, LOWER), (True, LOWER_LATE)]:
                order = "late" if late else "snapshot"
                path = os.path.join(tmp, f"protocol-{p}-{b}-{order}.mlir")
                lowered_protocol(p, b, path, pipeline)
                row[f"ccl-sim {order}"] = simulate(path, p, True, 10**12, args.timeout, max_memory,
                                                  extra=("--por", args.por))
                print(f"P={p} B={b} {order:<8} ccl-sim: {cell(row[f'ccl-sim {order}'])}", flush=True)
                directory = os.path.join(tmp, f"spin-{p}-{b}-{order}")
                os.mkdir(directory)
                pan = build_pan(directory, p, b, late, args.compression, max_memory)
                # pan clears its whole hash table, so its size shows in the peak.
                hash_bits = args.hash_bits or (20 if p == 2 or (p, b) == (3, 1) else 27)
                row[f"spin {order}"] = verify(pan, args.timeout, max_memory, hash_bits)
                row[f"spin {order}"]["hash_bits"] = hash_bits
                print(f"P={p} B={b} {order:<8} spin:    {cell(row[f'spin {order}'])}", flush=True)
            rows.append(row)
    results = {"timeout_s": args.timeout, "max_memory_gib": args.max_memory, "compression": args.compression,
               "cpus": os.cpu_count(), "runs": rows}
    with open(args.output, "w") as out:
        json.dump(results, out, indent=1)
        out.write("\n")
    print()
    print("| P | B | ccl-sim (snapshot order) | Spin (snapshot order) | old order: ccl-sim | old order: Spin |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        print(f"| {row['ranks']} | {row['blocks']} | {cell(row['ccl-sim snapshot'])} | {cell(row['spin snapshot'])} "
              f"| {verdict(row['ccl-sim late'])} | {verdict(row['spin late'])} |")

if __name__ == "__main__":
    main()
