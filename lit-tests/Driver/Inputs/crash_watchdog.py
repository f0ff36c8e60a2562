#!/usr/bin/env python3
"""Crashes TOOL while LLVM's crash handler cannot finish, and checks that the
process still ends promptly, by the crash's signal.

    crash_watchdog.py HANGING-SYMBOLIZER TOOL [ARG...]

TOOL reads its input from a pipe that stays open; once it waits there, it
gets SIGSEGV. LLVM's handler prints the stack trace with the symbolizer
named by LLVM_SYMBOLIZER_PATH, here a program that never returns, so the
handler hangs as it does on a malloc lock after heap corruption. Prints how
the process ended; exits 1 unless it died of SIGSEGV within 20 seconds.
"""
import os
import signal
import subprocess
import sys
import time


def waiting_for_input(pid):
    """Whether `pid` is blocked in read(2) (the first field of
    /proc/PID/syscall is the number of the syscall it sleeps in: 0)."""
    try:
        with open(f"/proc/{pid}/syscall") as f:
            return f.read().split(" ", 1)[0] == "0"
    except OSError:
        return False


def main(argv):
    symbolizer, command = argv[1], argv[2:]
    env = dict(os.environ, LLVM_SYMBOLIZER_PATH=symbolizer)
    tool = subprocess.Popen(command, stdin=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    deadline = time.monotonic() + 20
    while not waiting_for_input(tool.pid):
        if time.monotonic() > deadline or tool.poll() is not None:
            print("the tool never waited for its input")
            return 1
        time.sleep(0.05)
    start = time.monotonic()
    tool.send_signal(signal.SIGSEGV)
    try:
        _, stderr = tool.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        tool.kill()
        print("still running 20 s after the crash")
        return 1
    sys.stdout.write(stderr.decode(errors="replace"))
    print(f"ended by {tool.returncode} after {time.monotonic() - start:.0f} s")
    return 0 if tool.returncode == -signal.SIGSEGV else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
