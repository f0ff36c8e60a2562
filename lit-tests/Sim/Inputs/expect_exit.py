"""expect_exit.py CODE CMD...: runs CMD, passes its output through, and
succeeds only if it exits with CODE (lit's `not` accepts any failure)."""
import subprocess
import sys

expected = int(sys.argv[1])
code = subprocess.call(sys.argv[2:])
if code != expected:
    sys.stderr.write(f"expect_exit: {sys.argv[2]} exited with {code}, expected {expected}\n")
    sys.exit(1)
