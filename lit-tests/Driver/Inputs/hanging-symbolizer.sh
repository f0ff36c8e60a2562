#!/bin/sh
# A symbolizer that never answers (for crash-watchdog.test).
exec sleep 60
