#!/usr/bin/env bash
# run-queries-frame-ab.sh — the viewport queries and the timeline frame of
# two builds against each other, interleaved in one session (a shared
# machine drifts: A and B alternate run by run). Queries: RUNS fresh
# processes of strata-bench-index on a generated trace.dat through each
# build's own index (built first, untimed), the medians of their open
# time and query p50/p99. Frames: RUNS processes of strata-bench-frame on
# a generated stream of FRAME_N activities, the median of their
# all-level frame medians. Ratios are B over A.
#
# Usage: bench/run-queries-frame-ab.sh A_BUILD_DIR B_BUILD_DIR
# Environment: EVENTS (20000000), RUNS (5), FRAME_N (1M), DIR (traces,
#              reused when there; default /tmp/strata-ab), CPUS (8),
#              THREADS (256), SEED (1).

set -euo pipefail

A=${1:?usage: $0 A_BUILD_DIR B_BUILD_DIR}
B=${2:?usage: $0 A_BUILD_DIR B_BUILD_DIR}
EVENTS=${EVENTS:-20000000}
RUNS=${RUNS:-5}
FRAME_N=${FRAME_N:-1M}
DIR=${DIR:-/tmp/strata-ab}
CPUS=${CPUS:-8}
THREADS=${THREADS:-256}
SEED=${SEED:-1}

for b in "$A" "$B"; do
  for tool in src/cli/strata-cli bench/strata-bench-index bench/strata-bench-frame; do
    [[ -x $b/$tool ]] || { echo "error: $b/$tool not found; build first" >&2; exit 1; }
  done
done
mkdir -p "$DIR"
trace=$DIR/trace-$EVENTS.dat
[[ -f $trace ]] || "$B/bench/strata-gen-trace" --events "$EVENTS" --cpus "$CPUS" --threads "$THREADS" \
                     --seed "$SEED" -o "$trace" >&2
for side in A B; do
  build=${!side}
  [[ -f $DIR/$side.strata-index ]] ||
    "$build/src/cli/strata-cli" index --force --index "$DIR/$side.strata-index" "$trace" >/dev/null
done

median () { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

: > "$DIR/A.queries"; : > "$DIR/B.queries"; : > "$DIR/A.frames"; : > "$DIR/B.frames"
for run in $(seq "$RUNS"); do
  for side in A B; do
    build=${!side}
    "$build/bench/strata-bench-index" --index "$DIR/$side.strata-index" "$trace" |
      awk '/^open_ms/ { o = $2 } /^query_p50_us/ { p = $2 } /^query_p99_us/ { q = $2 } END { print o, p, q }' \
      >> "$DIR/$side.queries"
    "$build/bench/strata-bench-frame" -n "$FRAME_N" --seed "$run" --no-raw |
      sed -n 's/.*all levels: zoom tree median \([0-9.]*\) ms.*/\1/p' >> "$DIR/$side.frames"
  done
  echo "run $run of $RUNS done" >&2
done

printf '| | A | B | B / A |\n|---|---|---|---|\n'
for col in 1 2 3; do
  name=$(echo "open ms|query p50 us|query p99 us" | cut -d'|' -f$col)
  a=$(cut -d' ' -f$col "$DIR/A.queries" | median)
  b=$(cut -d' ' -f$col "$DIR/B.queries" | median)
  printf '| %s | %s | %s | %.2f |\n' "$name" "$a" "$b" "$(echo "$b / $a" | bc -l)"
done
a=$(median < "$DIR/A.frames"); b=$(median < "$DIR/B.frames")
printf '| frame ms (%s, all levels) | %s | %s | %.2f |\n' "$FRAME_N" "$a" "$b" "$(echo "$b / $a" | bc -l)"
