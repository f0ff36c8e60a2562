#!/usr/bin/env python3
"""The random search of the lowered all_to_all_v, whole and sharded.

At each P,B it times, on the same program in the same run:
- `ccl-sim FILE --ranks P --random N` with its default bounds (every core);
- `cclir.simulate_sharded(..., shards, random=N)`: the same schedules split
  into shards, on Ray when it is installed (a local instance with every
  core, or `--cluster ADDRESS`), else on local processes;
and checks that both give the same verdict and that the shards ran exactly
the whole search's schedules (each one's digest of its actions, against
`cclir.simulate`'s).

    target/python-venv/bin/python bench/shard_bench.py --random 1000 --sizes 16,32 --shards 4

It needs the release build's ccl-gen, ccl-opt and ccl-sim (cargo build
--release) and the Python package with Ray (bash scripts/test.sh makes
target/python-venv).
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sim_runs import BIN, lowered_protocol  # noqa: E402

import cclir  # noqa: E402


def timed(function):
    before, start = os.times(), time.perf_counter()
    value = function()
    after = os.times()
    cpu = sum(after[i] - before[i] for i in range(4))
    return value, time.perf_counter() - start, cpu


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--random", type=int, default=1000)
    parser.add_argument("--sizes", default="16,32", help="P,B pairs, ';' between")
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cluster", help="a Ray address, or 'processes'")
    args = parser.parse_args()
    sizes = [tuple(int(x) for x in pair.split(",")) for pair in args.sizes.split(";")]
    with tempfile.TemporaryDirectory() as tmp:
        for p, b in sizes:
            path = os.path.join(tmp, f"protocol-{p}-{b}.mlir")
            lowered_protocol(p, b, path)
            text = open(path, encoding="utf-8").read()
            argv = [os.path.join(BIN, "ccl-sim"), path, "--ranks", str(p), "--random", str(args.random),
                    "--seed", str(args.seed)]
            done, wall, cpu = timed(lambda: subprocess.run(argv, capture_output=True, text=True))
            line = (done.stdout + done.stderr).splitlines()[0]
            print(f"P={p} B={b} ccl-sim --random {args.random} (default bounds): exit {done.returncode}, "
                  f"{wall:.1f} s wall, {cpu:.1f} s CPU | {line}", flush=True)
            whole, wall, cpu = timed(lambda: cclir.simulate(text, p, random=args.random, seed=args.seed))
            print(f"P={p} B={b} cclir.simulate: {whole.verdict}, {whole.schedules} schedules, {wall:.1f} s wall, "
                  f"{cpu:.1f} s CPU", flush=True)
            sharded, wall, _ = timed(lambda: cclir.simulate_sharded(
                text, p, args.shards, cluster=args.cluster, random=args.random, seed=args.seed))
            same = sharded.schedule_digests == dict(whole.schedule_digests)
            print(f"P={p} B={b} {args.shards} shards on {sharded.ran_on}: {sharded.verdict}, "
                  f"{len(sharded.schedule_digests)} schedules, {wall:.1f} s wall; same verdict: "
                  f"{sharded.verdict == whole.verdict}; same schedules: {same}", flush=True)
            if sharded.verdict != whole.verdict or not same:
                sys.exit("shard_bench: the shards and the whole search differ")


if __name__ == "__main__":
    main()
