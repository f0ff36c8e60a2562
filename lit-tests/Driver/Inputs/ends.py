#!/usr/bin/env python3
"""How ccl-opt ends on an input that crashes or hangs upstream MLIR code,
beside upstream mlir-opt on the same arguments, both started at once:

    ends.py [--plugin] [--timeout S] --as KIND[,KIND...] -- ARG...

KIND is how ccl-opt may end:
  error    exits with a non-zero code
  crash    is killed by a signal (an abort, a fault)
  running  is still running after S seconds (default 20), and so is
           mlir-opt: a hang no longer than upstream's

Whatever the kinds, ccl-opt must not exit 0, and must not still be running
where mlir-opt has ended. Both runs are killed (with their process group:
LLVM's stack dump may start llvm-symbolizer) at S seconds. Nothing else is
compared: where the input overflows a buffer in upstream's code, how either
run ends depends on the heap's layout. Each run's standard error is shown
when the check fails.

--plugin  mlir-opt gets --load-dialect-plugin=$CCL_PLUGIN (ccl inputs).
In ARG, {out} is an output file, each tool its own.
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

KINDS = {"error", "crash", "running"}


class Run:
    def __init__(self, command, args, scratch):
        expanded = [a.replace("{out}", os.path.join(scratch, "out")) for a in args]
        self.stderr_path = os.path.join(scratch, "stderr")
        with open(self.stderr_path, "wb") as stderr:
            self.process = subprocess.Popen(
                command + expanded,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
                cwd=scratch,
                start_new_session=True,
            )
        self.end = None

    def poll(self):
        if self.end is None and self.process.poll() is not None:
            code = self.process.returncode
            if code == 0:
                self.end = ("success", "exited with 0")
            elif code < 0:
                self.end = ("crash", f"was killed by signal {-code} ({signal.Signals(-code).name})")
            else:
                self.end = ("error", f"exited with {code}")
        return self.end

    def stop(self):
        """Kills the run and what it started; it ends as `running`."""
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait()
        self.end = ("running", "was still running")

    def stderr_tail(self):
        with open(self.stderr_path, "rb") as f:
            lines = f.read().decode(errors="replace").splitlines()
        return "\n".join(lines[:12] + (["..."] if len(lines) > 12 else []))


def main():
    argv = sys.argv[1:]
    plugin, timeout, kinds = False, 20.0, None
    while argv and argv[0] != "--":
        flag = argv.pop(0)
        if flag == "--plugin":
            plugin = True
        elif flag == "--timeout":
            timeout = float(argv.pop(0))
        elif flag == "--as":
            kinds = set(argv.pop(0).split(","))
        else:
            sys.exit(f"ends.py: unknown flag {flag}")
    if not kinds or not kinds <= KINDS:
        sys.exit(f"ends.py: --as takes some of {', '.join(sorted(KINDS))}")
    args = argv[1:]
    tools = {}
    for name in ["mlir-opt", "ccl-opt"]:
        tools[name] = shutil.which(name)
        if not tools[name]:
            sys.exit(f"ends.py: {name} is not on PATH")
    upstream = [tools["mlir-opt"]] + ([f"--load-dialect-plugin={os.environ['CCL_PLUGIN']}"] if plugin else [])

    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
        runs = {"mlir-opt": Run(upstream, args, a), "ccl-opt": Run([tools["ccl-opt"]], args, b)}
        deadline = time.monotonic() + timeout
        while not all(run.poll() for run in runs.values()) and time.monotonic() < deadline:
            time.sleep(0.02)
        for run in runs.values():
            if not run.poll():
                run.stop()
        theirs, ours = runs["mlir-opt"].end, runs["ccl-opt"].end
        print(f"mlir-opt {theirs[1]}; ccl-opt {ours[1]} (within {timeout:g} s)")
        failure = None
        if ours[0] not in kinds:
            failure = f"ccl-opt {ours[1]}, expected: {', '.join(sorted(kinds))}"
        elif ours[0] == "running" and theirs[0] != "running":
            failure = f"ccl-opt was still running after {timeout:g} s, where mlir-opt {theirs[1]}"
        if failure:
            print("ends.py: " + failure)
            for name, run in runs.items():
                print(f"-- {name} stderr:\n{run.stderr_tail()}")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
