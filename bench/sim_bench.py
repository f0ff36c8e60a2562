#!/usr/bin/env python3
"""Benchmarks ccl-sim's exhaustive search on the lowered all_to_all_v protocol.

For P = 2..4 ranks and B in {1, P, 2P} blocks, it generates the protocol
program (ccl-gen --all-to-all-v P,B: two calls, each after a kernel that
restages the send counts), lowers it with ccl-pipeline{lower-collectives=true}
and runs `ccl-sim --exhaustive` on it twice: with the local-step reduction
(the default) and without it (--no-reduction, every ccl op a scheduling
point). It records distinct states, wall time, states per second and peak
RSS; a run that reaches --max-states or the time limit is reported as such,
with the states it had explored. There is no symmetry reduction to switch on
(ranks and blocks read their own ids into addresses, docs/ccl-sim.md), so the
reduction compared is the local-step one.

    python3 bench/sim_bench.py                 # the full matrix (minutes)
    python3 bench/sim_bench.py --quick         # P = 2 only, small limits
    python3 bench/sim_bench.py --max-states N --timeout S
    python3 bench/sim_bench.py --spin [spin_bench.py's options]   # ccl-sim and Spin side by side
    python3 bench/sim_bench.py --random 20 --threads 1,2   # seconds a random schedule, P = 8 and 16
    python3 bench/sim_bench.py --random 1000 --sizes 16,32 --threads 2   # issue 27's 1,000 schedules
    target/python-venv/bin/python bench/shard_bench.py     # the same, whole and in shards on Ray

It needs the release build (cargo build --release) and writes
bench/sim_results.json.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

from sim_runs import BIN, ROOT, lowered_protocol, simulate

def random_schedules(sizes, runs, threads, seed, max_states):
    """Seconds a random schedule: `ccl-sim --random RUNS` on the lowered
    protocol at each P,B of `sizes` with each thread count, wall and CPU
    time of the whole process (its parse and compile included), with
    --max-states (a bound of each schedule) as given."""
    with tempfile.TemporaryDirectory() as tmp:
        for p, b in sizes:
            path = os.path.join(tmp, f"protocol-{p}-{b}.mlir")
            lowered_protocol(p, b, path)
            for n in threads:
                argv = [os.path.join(BIN, "ccl-sim"), path, "--ranks", str(p), "--random", str(runs),
                        "--seed", str(seed), "--threads", str(n), "--max-states", str(max_states)]
                before = os.times()
                start = time.perf_counter()
                done = subprocess.run(argv, capture_output=True, text=True)
                wall = time.perf_counter() - start
                after = os.times()
                cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
                verdict = (done.stdout + done.stderr).splitlines()[0] if (done.stdout + done.stderr) else ""
                print(f"P={p} B={b} threads {n}: {runs} schedules, exit {done.returncode}, {wall:.1f} s wall, "
                      f"{cpu:.1f} s CPU, {wall / runs:.3f} s wall and {cpu / runs:.3f} s CPU a schedule | {verdict}",
                      flush=True)


def main():
    if "--spin" in sys.argv[1:]:
        # ccl-sim and Spin side by side: spin_bench.py's table, its options.
        sys.argv.remove("--spin")
        import spin_bench
        return spin_bench.main()
    parser = argparse.ArgumentParser()
    parser.add_argument("--spin", action="store_true", help="ccl-sim and Spin side by side (bench/spin_bench.py; "
                        "its options follow)")
    parser.add_argument("--quick", action="store_true", help="P = 2 only, small limits")
    parser.add_argument("--max-states", type=int, default=2_000_000)
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per run")
    parser.add_argument("--engine", choices=["dfs", "stateright"], default="dfs",
                        help="ccl-sim's exhaustive search (default dfs)")
    parser.add_argument("--por", choices=["on", "off", "dpor"], default="on",
                        help="ccl-sim's partial-order reduction (--por; default on, ccl-sim's default)")
    parser.add_argument("--random", type=int, metavar="N",
                        help="time N random schedules a size instead (ccl-sim --random N)")
    parser.add_argument("--sizes", default="8,16;16,32", help="with --random: P,B pairs, ';' between (default 8,16;16,32)")
    parser.add_argument("--threads", default="1,2", help="with --random: thread counts, ',' between (default 1,2)")
    parser.add_argument("--seed", type=int, default=0, help="with --random: the seed (default 0)")
    args = parser.parse_args()
    if args.random:
        sizes = [tuple(int(x) for x in pair.split(",")) for pair in args.sizes.split(";")]
        return random_schedules(sizes, args.random, [int(n) for n in args.threads.split(",")], args.seed,
                                args.max_states)
    if args.quick:
        args.max_states, args.timeout = min(args.max_states, 200_000), min(args.timeout, 30.0)
    for tool in ["ccl-gen", "ccl-opt", "ccl-sim"]:
        if not os.access(os.path.join(BIN, tool), os.X_OK):
            sys.exit(f"sim_bench: {BIN}/{tool} is missing: run cargo build --release first")
    ranks = [2] if args.quick else [2, 3, 4]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for p in ranks:
            for b in sorted({1, p, 2 * p}):
                path = os.path.join(tmp, f"protocol-{p}-{b}.mlir")
                lowered_protocol(p, b, path)
                for reduction in [True, False]:
                    result = simulate(path, p, reduction, args.max_states, args.timeout,
                                      extra=("--engine", args.engine, "--por", args.por))
                    result.update(ranks=p, blocks=b, reduction=reduction)
                    rows.append(result)
                    states = "-" if result["states"] is None else f"{result['states']:,}"
                    rate = result.get("states_per_second")
                    print(f"P={p} B={b:<2} {'reduced' if reduction else 'unreduced':<9} "
                          f"{result['outcome']:<22} states {states:>11}  {result['seconds']:8.2f} s  "
                          f"{'-' if rate is None else f'{rate:,}':>9} states/s  "
                          f"{result.get('peak_mib', '-')} MiB", flush=True)
    results = {"max_states": args.max_states, "timeout_s": args.timeout, "engine": args.engine, "por": args.por,
               "cpus": os.cpu_count(), "runs": rows}
    with open(os.path.join(ROOT, "bench", "sim_results.json"), "w") as out:
        json.dump(results, out, indent=1)
        out.write("\n")


if __name__ == "__main__":
    main()
