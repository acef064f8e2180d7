#!/usr/bin/env bash
# run-perf.sh — the perf.data benchmark: how fast Strata reads a big
# perf.data of scheduler tracepoints compared with perf's own readers,
# `perf script > /dev/null` and `perf sched timehist -s` (perf's fastest
# path through sched_switch). It records the file (as root: perf record of
# `perf bench sched pipe`, several hundred MB; not kept) unless one is
# given, counts its samples with `perf report --stats`, then times each
# reader (median of RUNS; perf script once, it is slow) and prints a
# markdown table of median seconds, samples/s, the speed-up of
# strata-cli stats over each perf reader, and peak RSS.
#
# Usage: bench/run-perf.sh [BUILD_DIR [PERF_DATA]]   (default: _build)
# Environment: LOOPS (perf bench sched pipe -l, default 1200000), RUNS (5),
#              KEEP=1 to keep the recorded file.

set -euo pipefail

BUILD=${1:-_build}
FILE=${2:-}
LOOPS=${LOOPS:-1200000}
RUNS=${RUNS:-5}
CLI=$BUILD/src/cli/strata-cli
TIME=/usr/bin/time

[[ -x $CLI ]] || { echo "error: $CLI not found; build first" >&2; exit 1; }
[[ -x $TIME ]] || { echo "error: $TIME not found (apt-get install time)" >&2; exit 1; }
command -v perf >/dev/null || { echo "error: perf not found" >&2; exit 1; }

TMP=$(mktemp -d /tmp/strata-perf-bench-XXXXXX)
if [[ ${KEEP:-0} != 1 ]]; then
  trap 'rm -rf "$TMP"' EXIT
fi

if [[ -z $FILE ]]; then
  FILE=$TMP/big.data
  echo "Recording perf bench sched pipe -l $LOOPS into $FILE ..." >&2
  perf record -q -m 16M -a -o "$FILE" \
    -e sched:sched_switch -e sched:sched_wakeup -e sched:sched_waking \
    -e sched:sched_stat_runtime -- perf bench sched pipe -l "$LOOPS" > /dev/null 2>&1
fi

SAMPLES=$(perf report --stats -i "$FILE" 2>/dev/null | awk '/SAMPLE events:/ { print $3; exit }')
SIZE=$(du -m "$FILE" | cut -f1)

# measure N CMD... : runs CMD N times (stdout to /dev/null), sets MEDIAN
# (seconds, wall clock) and PEAK_KB (largest maximum RSS over the runs).
measure () {
  local n=$1; shift
  local times=() peak=0 t0 t1 rss
  for ((i = 0; i < n; i++)); do
    t0=$(date +%s%N)
    "$TIME" -f '%M' -o "$TMP/rss" "$@" > /dev/null 2> "$TMP/err" || true
    t1=$(date +%s%N)
    times+=("$(( t1 - t0 ))")
    rss=$(tail -n 1 "$TMP/rss")
    (( rss > peak )) && peak=$rss
  done
  MEDIAN=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (n + 1) / 2 ))p" |
           awk '{ printf "%.3f", $1 / 1e9 }')
  PEAK_KB=$peak
}

declare -A T R
run () {
  local key=$1 n=$2; shift 2
  measure "$n" "$@"
  T[$key]=$MEDIAN
  R[$key]=$PEAK_KB
  N[$key]=$n
}
declare -A N

READER=$BUILD/bench/strata-bench-read
if [[ -x $READER ]]; then
  run read "$RUNS" "$READER" "$FILE"
fi
run stats "$RUNS" "$CLI" stats --no-index "$FILE"
run info "$RUNS" "$CLI" info --no-index "$FILE"
run timehist "$RUNS" perf sched timehist -s -i "$FILE"
run script 1 perf script -i "$FILE"

row () {
  awk -v tool="$1" -v runs="${N[$2]}" -v t="${T[$2]}" -v kb="${R[$2]}" -v s="$SAMPLES" \
      -v ours="${T[stats]}" 'BEGIN {
    printf "| %s | %d | %.3f | %.2f M | %.1fx | %.0f MB |\n", tool, runs, t, s / t / 1e6, t / ours, kb / 1024
  }'
}

echo "## Strata perf.data benchmark"
echo
echo "$(uname -r), $(nproc) CPUs, $(perf --version); $SAMPLES tracepoint samples, ${SIZE} MB"
echo
echo "| reader | runs | median s | samples/s | time / strata-cli stats | peak RSS |"
echo "|---|---|---|---|---|---|"
if [[ -n ${T[read]:-} ]]; then
  row "strata-bench-read (the reader alone: read, decode, reorder)" read
fi
row "strata-cli stats (read, decode, reorder, kernel model, statistics)" stats
row "strata-cli info (the same pass, activities kept)" info
row "perf sched timehist -s" timehist
row "perf script > /dev/null" script
