#!/usr/bin/env bash
# run-foundation.sh — the foundation benchmark: how fast Strata reads a big
# trace.dat compared with the bare libtracecmd iteration and `trace-cmd
# report`. It generates a synthetic scheduler trace (uncompressed v7 and a
# zstd twin of the same seed) in a temporary directory, times each reader
# (median of 5 runs; trace-cmd report once, it is slow) and prints markdown
# tables of median seconds, events/s, time relative to the bare iteration and
# peak RSS.
#
# Usage: bench/run-foundation.sh [BUILD_DIR]   (default: _build)
# Environment: EVENTS (default 5000000), CPUS (8), THREADS (256), SEED (1),
#              RUNS (5), KEEP=1 to keep the generated traces.

set -euo pipefail

BUILD=${1:-_build}
EVENTS=${EVENTS:-5000000}
CPUS=${CPUS:-8}
THREADS=${THREADS:-256}
SEED=${SEED:-1}
RUNS=${RUNS:-5}

GEN=$BUILD/bench/strata-gen-trace
ITER=$BUILD/bench/strata-bench-iterate
CLI=$BUILD/src/cli/strata-cli
TIME=/usr/bin/time

for tool in "$GEN" "$ITER"; do
  if [[ ! -x $tool ]]; then
    echo "error: $tool not found; build first (meson setup $BUILD && ninja -C $BUILD)" >&2
    exit 1
  fi
done
if [[ ! -x $TIME ]]; then
  echo "error: $TIME not found (apt-get install time)" >&2
  exit 1
fi
command -v trace-cmd >/dev/null || { echo "error: trace-cmd not found" >&2; exit 1; }

TMP=$(mktemp -d /tmp/strata-foundation-XXXXXX)
if [[ ${KEEP:-0} != 1 ]]; then
  trap 'rm -rf "$TMP"' EXIT
fi

echo "Generating $EVENTS events ($CPUS CPUs, $THREADS threads, seed $SEED) in $TMP ..." >&2
"$GEN" --events "$EVENTS" --cpus "$CPUS" --threads "$THREADS" --seed "$SEED" \
  -o "$TMP/trace.dat"
"$GEN" --events "$EVENTS" --cpus "$CPUS" --threads "$THREADS" --seed "$SEED" \
  --compression zstd -o "$TMP/trace-zstd.dat"

# measure N CMD... : runs CMD N times (stdout to /dev/null), sets MEDIAN
# (seconds, wall clock) and PEAK_KB (largest maximum RSS over the runs).
measure () {
  local n=$1; shift
  local times=() peak=0 t0 t1 rss
  for ((i = 0; i < n; i++)); do
    t0=$(date +%s%N)
    "$TIME" -f '%M' -o "$TMP/rss" "$@" > /dev/null
    t1=$(date +%s%N)
    times+=("$(( t1 - t0 ))")
    rss=$(tail -n 1 "$TMP/rss")
    (( rss > peak )) && peak=$rss
  done
  local sorted
  sorted=$(printf '%s\n' "${times[@]}" | sort -n)
  MEDIAN=$(echo "$sorted" | sed -n "$(( (n + 1) / 2 ))p" | awk '{ printf "%.3f", $1 / 1e9 }')
  PEAK_KB=$peak
}

row () {
  # row TOOL RUNS MEDIAN PEAK_KB BASELINE
  awk -v tool="$1" -v runs="$2" -v t="$3" -v kb="$4" -v base="$5" -v ev="$EVENTS" 'BEGIN {
    printf "| %s | %d | %.3f | %.2f M | %.2fx | %.0f MB |\n", tool, runs, t, ev / t / 1e6, t / base, kb / 1024
  }'
}

bench_file () {
  local label=$1 file=$2 base
  local size
  size=$(du -m "$file" | cut -f1)

  # Sanity: the baseline must see exactly the generated number of events.
  local seen
  seen=$("$ITER" "$file" | sed -n 's/.*events=\([0-9]*\).*/\1/p')
  if [[ $seen != "$EVENTS" ]]; then
    echo "error: $file: strata-bench-iterate saw $seen events, expected $EVENTS" >&2
    exit 1
  fi

  echo
  echo "### $label ($EVENTS events, ${size} MB)"
  echo
  echo "| tool | runs | median s | events/s | time vs bare iteration | peak RSS |"
  echo "|---|---|---|---|---|---|"

  measure "$RUNS" "$ITER" "$file"
  base=$MEDIAN
  row "strata-bench-iterate (libtracecmd, merged)" "$RUNS" "$MEDIAN" "$PEAK_KB" "$base"

  measure "$RUNS" "$ITER" --per-cpu "$file"
  row "strata-bench-iterate --per-cpu (no merge)" "$RUNS" "$MEDIAN" "$PEAK_KB" "$base"

  if [[ -x $CLI ]]; then
    measure "$RUNS" "$CLI" stats "$file"
    row "strata-cli stats" "$RUNS" "$MEDIAN" "$PEAK_KB" "$base"
  else
    echo "| strata-cli stats | – | skipped: $CLI not built | | | |"
  fi

  measure 1 trace-cmd report "$file"
  row "trace-cmd report" 1 "$MEDIAN" "$PEAK_KB" "$base"
}

echo "## Strata foundation benchmark"
echo
echo "$(uname -r), $(nproc) CPUs, $(trace-cmd --version 2>&1 | sed -n 's/^trace-cmd version \([^ ]*\).*/trace-cmd \1/p' | head -n 1)," \
     "synthetic trace: $CPUS CPUs, $THREADS threads, seed $SEED"
bench_file "trace.dat v7, uncompressed" "$TMP/trace.dat"
bench_file "trace.dat v7, zstd" "$TMP/trace-zstd.dat"
