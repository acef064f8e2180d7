#!/usr/bin/env bash
# run-index-ab.sh — the index build of two builds of strata-cli against
# each other, interleaved in one session (a shared machine drifts: runs
# of A and B alternate, with the bare libtracecmd iteration between them
# as the baseline ratio). For each generated trace size: RUNS runs of
# `strata-cli index --force` with A, with B and of strata-bench-iterate,
# in turn; the medians of wall, user and system time, the median and
# largest peak RSS (/usr/bin/time -f %M), and whether A's and B's indexes
# are the same bytes.
#
# Usage: bench/run-index-ab.sh A_BUILD_DIR B_BUILD_DIR
# Environment: SIZES (event counts, default "2000000 5000000"), RUNS (3),
#              DIR (traces, reused when there; default /tmp/strata-ab),
#              CPUS (8), THREADS (256), SEED (1), B_ENV (extra environment
#              for B's runs, e.g. "STRATA_ZOOM_CHUNK_SPILL_FROM=0").

set -euo pipefail

A=${1:?usage: $0 A_BUILD_DIR B_BUILD_DIR}
B=${2:?usage: $0 A_BUILD_DIR B_BUILD_DIR}
SIZES=${SIZES:-2000000 5000000}
RUNS=${RUNS:-3}
DIR=${DIR:-/tmp/strata-ab}
CPUS=${CPUS:-8}
THREADS=${THREADS:-256}
SEED=${SEED:-1}
B_ENV=${B_ENV:-}
TIME=/usr/bin/time
GEN=$B/bench/strata-gen-trace
ITER=$B/bench/strata-bench-iterate

for tool in "$A/src/cli/strata-cli" "$B/src/cli/strata-cli" "$GEN" "$ITER"; do
  [[ -x $tool ]] || { echo "error: $tool not found; build first" >&2; exit 1; }
done
[[ -x $TIME ]] || { echo "error: $TIME not found (apt-get install time)" >&2; exit 1; }
mkdir -p "$DIR"

# one LABEL CMD... : appends "wall user sys rss_kb" to $DIR/LABEL.runs
one () {
  local label=$1; shift
  local t0 t1
  t0=$(date +%s%N)
  "$TIME" -f '%U %S %M' -o "$DIR/time.out" "$@" > /dev/null 2> "$DIR/$label.err"
  t1=$(date +%s%N)
  echo "$(( t1 - t0 )) $(tail -n 1 "$DIR/time.out")" >> "$DIR/$label.runs"
}

# median COLUMN FILE
median () {
  awk -v c="$1" '{ print $c }' "$2" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

largest () {
  awk -v c="$1" '{ print $c }' "$2" | sort -g | tail -n 1
}

echo "| events | build | runs | wall s | user s | sys s | wall / bare iteration | peak RSS (median, largest) |"
echo "|---|---|---|---|---|---|---|---|"
for n in $SIZES; do
  trace=$DIR/trace-$n.dat
  [[ -f $trace ]] || "$GEN" --events "$n" --cpus "$CPUS" --threads "$THREADS" --seed "$SEED" -o "$trace" > /dev/null 2>&1
  rm -f "$DIR"/{a,b,iter}-"$n".runs
  for ((i = 0; i < RUNS; i++)); do
    one "a-$n" "$A/src/cli/strata-cli" index --force --index "$DIR/a-$n.idx" "$trace"
    one "iter-$n" "$ITER" "$trace"
    one "b-$n" env $B_ENV "$B/src/cli/strata-cli" index --force --index "$DIR/b-$n.idx" "$trace"
  done
  bare=$(median 1 "$DIR/iter-$n.runs")
  for who in a b iter; do
    f=$DIR/$who-$n.runs
    awk -v n="$n" -v who="$who" -v runs="$RUNS" -v w="$(median 1 "$f")" -v u="$(median 2 "$f")" \
        -v s="$(median 3 "$f")" -v bare="$bare" -v m="$(median 4 "$f")" -v l="$(largest 4 "$f")" 'BEGIN {
      printf "| %d | %s | %d | %.2f | %.2f | %.2f | %.2fx | %.0f MB, %.0f MB |\n",
             n, who, runs, w / 1e9, u, s, w / bare, m / 1024, l / 1024 }'
  done
  if cmp -s "$DIR/a-$n.idx" "$DIR/b-$n.idx"; then
    echo "| $n | a, b | | | | | the same index bytes | |"
  else
    echo "| $n | a, b | | | | | **the indexes differ** | |"
  fi
done
