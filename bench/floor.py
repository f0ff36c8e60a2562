#!/usr/bin/env python3
"""How close the pipeline could come to mlir-opt if the Rust passes cost nothing.

On one generated program (1M ops by default, the size matrix's shape), in
rotated order, it runs each of these ROUNDS times with `--mlir-timing`:
  base     mlir-opt --load-dialect-plugin: parse, verify, print
  none     ccl-opt without passes
  pipe     ccl-opt with the budget's pipeline (bench/run.py's PIPELINE, verify-each on)
  pipe-v0  the same with --verify-each=0
and splits the pipeline's extra time into what MLIR spends on the
pipeline's result and what the Rust passes spend:
  verify-each   pipe - pipe-v0 (wall): re-verifying the changed functions
                and the module after the func.func adaptor
  markers       (Output + Rest) of pipe-v0 - (Output + Rest) of none:
                printing and destroying the inserted ops
  rust passes   the pass rows of pipe-v0
The floor is pipe minus the Rust passes: the pipeline's time if they took
no time, with everything else (MLIR's work, and what the timing report does
not cover) left in. Medians throughout.

    python3 bench/floor.py                # 1M ops, 10 rounds (about 4 minutes)
    python3 bench/floor.py --ops 100000 --rounds 20
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import BIN, LLVM, PIPELINE as PIPELINE_TEXT, PLUGIN, ROOT, generate_sized, run_measured, timing_rows  # noqa: E402

# The budget's pipeline, as bench/run.py times it.
PIPELINE = f"--pass-pipeline={PIPELINE_TEXT}"
PASS_ROWS = ("CclFindPostCollectiveKernels", "'func.func' Pipeline", "CclVerifyCommOrder")


def commands(path):
    ccl_opt = os.path.join(BIN, "ccl-opt")
    return {
        "base": [os.path.join(LLVM, "mlir-opt"), f"--load-dialect-plugin={PLUGIN}", path],
        "none": [ccl_opt, path],
        "pipe": [ccl_opt, path, PIPELINE],
        "pipe-v0": [ccl_opt, path, PIPELINE, "--verify-each=0"],
    }


def timed(argv, sink):
    """Wall seconds of one run, and the rows of its timing report."""
    wall, _, report = run_measured([*argv, "--mlir-timing"], sink)
    return wall, timing_rows(report)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ops", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    subprocess.run(["cargo", "build", "--release", "--quiet", "--bin", "ccl-opt", "--bin", "ccl-gen"],
                   cwd=ROOT, check=True)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "input.mlir")
        generate_sized(path, args.ops)
        cmds = commands(path)
        names = list(cmds)
        runs = {name: [] for name in names}
        for round_index in range(args.rounds):
            # Rotating the order spreads the machine's drift over all four.
            shift = round_index % len(names)
            for name in names[shift:] + names[:shift]:
                runs[name].append(timed(cmds[name], os.path.join(tmp, "sink")))

    def wall(name):
        return statistics.median(w for w, _ in runs[name])

    def row(name, row_name):
        return statistics.median(rows.get(row_name, 0.0) for _, rows in runs[name])

    base = wall("base")
    for name in names:
        pairs = statistics.median(a[0] / b[0] for a, b in zip(runs[name], runs["base"]))
        print(f"{name:8} {wall(name):.3f} s  {wall(name) / base:.3f} of base (pairs {pairs:.3f})")
    verify_each = wall("pipe") - wall("pipe-v0")
    markers = (row("pipe-v0", "Output") + row("pipe-v0", "Rest")) - (row("none", "Output") + row("none", "Rest"))
    rust = sum(row("pipe-v0", pass_row) for pass_row in PASS_ROWS)
    other = wall("pipe") - wall("none") - verify_each - markers - rust
    floor = wall("pipe") - rust
    print(f"pipe - none = {wall('pipe') - wall('none'):.3f} s: verify-each {verify_each:.3f}, markers {markers:.3f}, "
          f"Rust passes {rust:.3f}, the rest {other:.3f} (parser and exit noise, teardown outside the report)")
    print(f"floor (Rust passes free) {floor:.3f} s = {floor / base:.3f} of base; 1.10 of base is {1.1 * base:.3f} s,")
    print(f"so the Rust passes may take {1.1 * base - floor:.3f} s; they take {rust:.3f} s")


if __name__ == "__main__":
    main()
