#!/usr/bin/env python3
# check-test-parts.py EXE PREFIX...
#
# A test program split into parts (test_parts in tests/meson.build) runs
# only the GTest paths under the prefixes listed for it. This fails when
# the program has a path no prefix covers, so a test added to one of
# those files without its group listed does not silently stop running.
#
# SPDX-License-Identifier: GPL-3.0-or-later

import subprocess
import sys

exe, prefixes = sys.argv[1], sys.argv[2:]
out = subprocess.run([exe, '-l'], check=True, capture_output=True, text=True).stdout
paths = [line.strip() for line in out.splitlines() if line.startswith('/')]
if not paths:
    sys.exit(f'{exe}: no test paths listed')


def covered(path):
    return any(path == p or path.startswith(p.rstrip('/') + '/') for p in prefixes)


missing = [p for p in paths if not covered(p)]
for p in missing:
    print(f'{exe}: {p} is in no part of test_parts', file=sys.stderr)
print(f'{len(paths) - len(missing)} of {len(paths)} paths covered')
sys.exit(1 if missing else 0)
