#!/bin/sh
# Strata's whole test suite: set up, build, run every test in a normal
# build, the unit suite again in a release build, and the unit and
# integration suites again under AddressSanitizer and
# UndefinedBehaviorSanitizer. Ends with the line "N passed, N failed".
#   scripts/test.sh
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

sh scripts/install-deps.sh || exit 1

# Tests that record, and the trace generator (which takes its event formats
# from this machine's tracefs), need tracefs; a fresh machine may not have it
# mounted yet (perf mounts it for itself, nothing else does).
if [ "$(id -u)" -eq 0 ] && [ ! -e /sys/kernel/tracing/events/header_page ]; then
  mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true
fi

status=0

meson setup _build --buildtype=debugoptimized >/dev/null 2>&1 || meson setup --reconfigure _build >/dev/null || exit 1
ninja -C _build || exit 1
meson test -C _build --print-errorlogs --num-processes 2 || status=1

# A release build (-O3, as packagers build it): no warnings there either,
# and the unit suite and the benchmarks' own checks pass. Optimization
# reads what a debug build happens to leave alone (an unset colour once
# aborted the frame benchmark's first paint here and nowhere else).
meson setup _build-release --buildtype=release >/dev/null 2>&1 || meson setup --reconfigure _build-release >/dev/null || exit 1
ninja -C _build-release || exit 1
meson test -C _build-release --print-errorlogs --num-processes 2 --suite unit --suite bench || status=1

# The sanitizer build: clang, ASan + UBSan, leaks checked.
CC=clang meson setup _build-asan --buildtype=debug -Db_sanitize=address,undefined \
  -Db_lundef=false -Dbench=false >/dev/null 2>&1 || meson setup --reconfigure _build-asan >/dev/null || exit 1
ninja -C _build-asan || exit 1
# tests/meson.build sets ASAN_OPTIONS, UBSAN_OPTIONS and the leak suppressions.
# Sanitized code runs several times slower: the timeouts stretch with it.
meson test -C _build-asan --print-errorlogs --num-processes 2 --timeout-multiplier 3 \
  --suite unit --suite integration || status=1
# The UI suite under the sanitizers too (tests/meson.build turns GDK's GL
# off there, so no Mesa driver is loaded to leak at exit), logged apart so
# the unit and integration log above stays whole.
meson test -C _build-asan --print-errorlogs --timeout-multiplier 3 --suite ui \
  --logbase testlog-ui || status=1

python3 scripts/count-tests.py _build/meson-logs/testlog.json _build-release/meson-logs/testlog.json _build-asan/meson-logs/testlog.json _build-asan/meson-logs/testlog-ui.json || status=1
exit $status
