#!/usr/bin/env python3
"""%expect-exit CODE COMMAND ARG...: runs COMMAND with this process's standard
input, output and error (so its output goes on to FileCheck as if run
directly), and fails unless it exits with exactly CODE.

lit's `not` only asserts a non-zero exit; ccl-sim's codes mean different
things (0 no race, 1 bad input or no conclusion, 3 race or deadlock), so the
tests name the one they expect.
"""
import subprocess
import sys


def main(argv):
    if len(argv) < 3:
        print("usage: expect_exit.py CODE COMMAND [ARG...]", file=sys.stderr)
        return 2
    try:
        expected = int(argv[1])
    except ValueError:
        print(f"expect-exit: '{argv[1]}' is not an exit code", file=sys.stderr)
        return 2
    command = argv[2:]
    try:
        code = subprocess.call(command)
    except OSError as error:
        print(f"expect-exit: cannot run {command[0]}: {error}", file=sys.stderr)
        return 2
    if code == expected:
        return 0
    got = f"was killed by signal {-code}" if code < 0 else f"exited with {code}"
    print(f"expect-exit: {' '.join(command)} {got}, expected exit code {expected}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
