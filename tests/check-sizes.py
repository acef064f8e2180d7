#!/usr/bin/env python3
# check-sizes.py [TOP]
#
# One concept a file, and a function a reader can hold in mind: no file
# of src/ over 2,000 lines, no function of src/ over 150. A function is
# found as GNU style lays it out: its name at the start of a line before
# its parameters, its body from a "{" to a "}" at the start of a line.
#
# SPDX-License-Identifier: GPL-3.0-or-later

import os
import re
import sys

MAX_FILE = 2000
MAX_FUNCTION = 150


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..')
    problems = []
    n_files = n_functions = 0
    for folder, dirs, files in os.walk(os.path.join(top, 'src')):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith(('.c', '.h')):
                continue
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, top)
            with open(path, encoding='utf-8', errors='replace') as f:
                lines = f.read().split('\n')
            n_files += 1
            if len(lines) > MAX_FILE:
                problems.append(f'{rel}: {len(lines)} lines, more than {MAX_FILE}')
            function, start = None, 0
            for i, line in enumerate(lines):
                m = re.match(r'^([A-Za-z_]\w*) \(', line)
                if m:
                    function, start = m.group(1), i
                elif line.startswith('}') and function is not None:
                    n_functions += 1
                    if i - start + 1 > MAX_FUNCTION:
                        problems.append(f'{rel}:{start + 1}: {function} is {i - start + 1} lines, '
                                        f'more than {MAX_FUNCTION}')
                    function = None
    for line in problems:
        print(line, file=sys.stderr)
    print(f'{n_files} files, {n_functions} functions: {len(problems)} problems')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
