#!/usr/bin/env python3
"""Counts GTest cases (TAP lines) across meson test logs and prints the line
CI reads: 'N passed, N failed' (with ', N skipped' when any were skipped).
A test executable that crashed or timed out counts as one failure."""
import json
import re
import sys

passed = failed = skipped = 0
for log in sys.argv[1:]:
    try:
        entries = [json.loads(line) for line in open(log) if line.strip()]
    except OSError as e:
        print(f"count-tests: {log}: {e}", file=sys.stderr)
        failed += 1
        continue
    for entry in entries:
        out = entry.get("stdout") or ""
        oks = nots = skips = 0
        for line in out.splitlines():
            if re.match(r"^ok \d+", line):
                if "# SKIP" in line:
                    skips += 1
                else:
                    oks += 1
            elif re.match(r"^not ok \d+", line):
                if "# TODO" in line:
                    continue
                nots += 1
        result = entry.get("result")
        if result in ("FAIL", "TIMEOUT", "ERROR", "UNEXPECTEDPASS") and nots == 0:
            nots = 1
        if oks + nots + skips == 0:
            if result == "OK":
                oks = 1
            elif result == "SKIP":
                skips = 1
        passed += oks
        failed += nots
        skipped += skips

line = f"{passed} passed, {failed} failed"
if skipped:
    line += f", {skipped} skipped"
print(line)
sys.exit(1 if failed else 0)
