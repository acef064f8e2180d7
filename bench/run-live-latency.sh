#!/bin/sh
# run-live-latency.sh — how soon a new thread's row is on screen while the
# window follows a recording: tests/test-ui-live (Xvfb, as root) starts 12
# processes while it follows `strata-cli record`, and says the median,
# min and max from each one's first moment in the trace to the first
# frame drawn with its row. Runs alternate between the recorder's default
# drain period and another one (OTHER, strata-cli record --drain-period),
# so the machine's load hits both alike; prints each run and the medians
# of the runs' medians. Each run takes /tmp/strata-record.lock itself.
#
# Usage: sudo bench/run-live-latency.sh [BUILD_DIR]   (default: _build)
# Environment: RUNS (5 of each), OTHER (20, ms)
set -eu

BUILD=${1:-_build}
RUNS=${RUNS:-5}
OTHER=${OTHER:-20}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

one ()
{
  # $1: the drain period's name, $2: the period (empty: the default)
  # The test's messages are in its log, not on meson's output.
  log=$BUILD/meson-logs/live-latency.txt
  rm -f "$log"
  if [ -n "$2" ]; then
    STRATA_TEST_DRAIN_PERIOD=$2 meson test -C "$BUILD" --no-rebuild --logbase live-latency test-ui-live \
      > "$out/log" 2>&1 || true
  else
    meson test -C "$BUILD" --no-rebuild --logbase live-latency test-ui-live > "$out/log" 2>&1 || true
  fi
  [ -f "$log" ] && cat "$log" >> "$out/log"
  line=$(grep -o 'median [0-9.]* ms, min [0-9.]* ms, max [0-9.]* ms' "$out/log" | head -n 1)
  if [ -z "$line" ]; then
    echo "$1: no latency line (the test failed or skipped):" >&2
    tail -n 20 "$out/log" >&2
    return
  fi
  echo "$1 $line  (load $(cut -d' ' -f1 /proc/loadavg))"
  echo "$line" | sed 's/median \([0-9.]*\) ms.*/\1/' >> "$out/$1"
}

i=0
while [ "$i" -lt "$RUNS" ]; do
  if [ $((i % 2)) -eq 0 ]; then
    one default ""; one "drain-${OTHER}ms" "$OTHER"
  else
    one "drain-${OTHER}ms" "$OTHER"; one default ""
  fi
  i=$((i + 1))
done

for f in default "drain-${OTHER}ms"; do
  [ -f "$out/$f" ] || continue
  printf '%s: median of %d medians: %s ms\n' "$f" "$(wc -l < "$out/$f")" \
    "$(sort -n "$out/$f" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')"
done
