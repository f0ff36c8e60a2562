"""Running ccl-sim on the lowered all_to_all_v protocol, for the benchmarks
(sim_bench.py, spin_bench.py): the release build's tools, the protocol
lowered at P ranks and B blocks, a run under a time and an address-space
limit, and one exhaustive search read into a dict.
"""

import os
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# CCLIR_BENCH_BIN: another build to measure (e.g. a copy of an older ccl-sim beside ccl-gen and ccl-opt).
BIN = os.environ.get("CCLIR_BENCH_BIN", os.path.join(ROOT, "target", "release"))
LOWER = "builtin.module(ccl-pipeline{lower-collectives=true sync=false})"
# The old order, the snapshot after Barrier B (tests/sim_protocol.rs lowers it the same way).
LOWER_LATE = "builtin.module(ccl-admit-launch-width,ccl-lower-all-to-all-v{late-snapshot=true},ccl-insert-comm-fence)"
CLEAN = re.compile(r"no race: (\d+) states explored")
LIMIT = re.compile(r"\((\d+) states generated, (\d+) distinct\)")
MEMORY_BOUND = re.compile(r"--max-memory \S+ \S+ reached \(.* held after (\d+) states generated, (\d+) distinct\)")
SEARCH = re.compile(r"search: ([\d,]+) states stored(?: as \d+-bit fingerprints \((\d+) bytes a state\))?.*?, "
                    r"(\d+) threads?, ([\d.]+) s")
FOUND = re.compile(r"found after (\d+) states")
MEMORY = re.compile(r"memory allocation of \d+ bytes failed|out of memory|Cannot allocate memory")


def lowered_protocol(p, b, path, pipeline=LOWER):
    program = subprocess.run([os.path.join(BIN, "ccl-gen"), "--all-to-all-v", f"{p},{b}"],
                             check=True, capture_output=True).stdout
    lowered = subprocess.run([os.path.join(BIN, "ccl-opt"), "-", "-p", pipeline], input=program,
                             check=True, capture_output=True).stdout
    with open(path, "wb") as out:
        out.write(lowered)


def run_limited(argv, timeout, max_memory=None, cwd=None):
    """Runs argv with a time limit (seconds) and an address-space limit
    (bytes), output to a file. Returns (exit code, or None when the time
    limit stopped it; its output; seconds; peak RSS in MiB)."""
    def limit_memory():
        if max_memory:
            resource.setrlimit(resource.RLIMIT_AS, (max_memory, max_memory))

    # The child is polled with wait4, so its own peak RSS is read and the
    # time limit can stop it (and its process group).
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        child = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                                 preexec_fn=limit_memory, cwd=cwd)
        timed_out = False
        while True:
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() - start > timeout:
                os.killpg(child.pid, signal.SIGKILL)
                _, status, usage = os.wait4(child.pid, 0)
                timed_out = True
                break
            time.sleep(0.02)
        seconds = time.perf_counter() - start
        out.seek(0)
        text = out.read().decode(errors="replace")
    code = None if timed_out else os.waitstatus_to_exitcode(status)
    return code, text, round(seconds, 3), round(usage.ru_maxrss / 1024.0, 1)


def simulate(path, p, reduction, max_states, timeout, max_memory=None, extra=()):
    """One exhaustive ccl-sim run: a dict of outcome, states, seconds, peak RSS
    (and, from --stats, the bytes the visited set takes a state). With
    max_memory, ccl-sim's own --max-memory bound is 90% of it, so the search
    ends in "no conclusion" before the address-space limit stops it."""
    argv = [os.path.join(BIN, "ccl-sim"), path, "--ranks", str(p), "--exhaustive",
            "--max-states", str(max_states), "--stats", *extra]
    if max_memory:
        argv += ["--max-memory", str(int(max_memory * 0.9))]
    if not reduction:
        argv.append("--no-reduction")
    code, text, seconds, peak = run_limited(argv, timeout, max_memory)
    result = {"seconds": seconds, "peak_mib": peak}
    if code is None:
        result.update(outcome=f"time limit ({timeout:.0f} s)", states=None)
    elif code == 0 and CLEAN.search(text):
        result.update(outcome="no race", states=int(CLEAN.search(text).group(1)))
    elif code == 1 and MEMORY_BOUND.search(text):
        result.update(outcome="--max-memory reached", states=int(MEMORY_BOUND.search(text).group(2)))
    elif code == 1 and LIMIT.search(text):
        result.update(outcome="--max-states reached", states=int(LIMIT.search(text).group(2)))
    elif code == 3 and FOUND.search(text):
        result.update(outcome="race", states=int(FOUND.search(text).group(1)))
    elif max_memory and code != 0 and MEMORY.search(text):
        result.update(outcome="memory limit", states=None)
    else:
        sys.exit(f"sim_bench: {' '.join(argv)} exited {code}:\n{text[:2000]}")
    search = SEARCH.search(text)
    if search:
        result.update(stored=int(search.group(1).replace(",", "")), threads=int(search.group(3)))
        if search.group(2):
            result["bytes_per_state"] = int(search.group(2))
    if result["states"] is not None and seconds > 0:
        result["states_per_second"] = round(result["states"] / seconds)
    return result
