#!/usr/bin/env bash
# run-perf.sh — the perf.data benchmark: how fast Strata reads and indexes
# a big perf.data of scheduler tracepoints compared with perf's own
# readers, `perf script > /dev/null` and `perf sched timehist -s` (perf's
# fastest path through sched_switch). It records the file (as root: perf
# record of `perf bench sched pipe`, several hundred MB; not kept) unless
# one is given, counts its samples with `perf report --stats`, then times,
# in one run and interleaved round by round (so that a change in the
# machine's load hits every row alike):
#
#   strata-bench-read           the reader alone (read, decode, reorder)
#   strata-bench-read --read-ahead  the same with its read-ahead thread
#   strata-cli index --force    the issue's "index time": reader, kernel
#                               model, zoom tree, index written (a fresh
#                               index path each run, removed after it)
#   strata-cli stats --no-index one pass: reader, model, statistics
#   perf sched timehist -s
#   perf script > /dev/null     (once: it is slow)
#
# and prints a markdown table of median wall seconds (of RUNS), median CPU
# seconds (user + system), samples/s, peak RSS, and how many times faster
# each Strata row is than perf script and than perf sched timehist, plus
# the reader's share of the index time. With BASE_CLI and BASE_READER
# (binaries of another build, e.g. the branch's start) their rows are
# timed in the same rounds too.
#
# Usage: bench/run-perf.sh [BUILD_DIR [PERF_DATA]]   (default: _build)
# Environment: LOOPS (perf bench sched pipe -l, default 900000), RUNS (5),
#              KEEP=1 to keep the recorded file, BASE_CLI, BASE_READER.

set -euo pipefail

BUILD=${1:-_build}
FILE=${2:-}
LOOPS=${LOOPS:-900000}
RUNS=${RUNS:-5}
CLI=$BUILD/src/cli/strata-cli
READER=$BUILD/bench/strata-bench-read
TIME=/usr/bin/time

[[ -x $CLI ]] || { echo "error: $CLI not found; build first" >&2; exit 1; }
[[ -x $READER ]] || { echo "error: $READER not found; build with -Dbench=true" >&2; exit 1; }
[[ -x $TIME ]] || { echo "error: $TIME not found (apt-get install time)" >&2; exit 1; }
command -v perf >/dev/null || { echo "error: perf not found" >&2; exit 1; }

TMP=$(mktemp -d /tmp/strata-perf-bench-XXXXXX)
if [[ ${KEEP:-0} != 1 ]]; then
  trap 'rm -rf "$TMP"' EXIT
fi

# The binaries timed are copies: a rebuild during the run changes nothing.
mkdir -p "$TMP/bin"
cp "$CLI" "$TMP/bin/strata-cli"
cp "$READER" "$TMP/bin/strata-bench-read"
CLI=$TMP/bin/strata-cli
READER=$TMP/bin/strata-bench-read
if [[ -n ${BASE_CLI:-} ]]; then
  cp "$BASE_CLI" "$TMP/bin/base-strata-cli"
  BASE_CLI=$TMP/bin/base-strata-cli
fi
if [[ -n ${BASE_READER:-} ]]; then
  cp "$BASE_READER" "$TMP/bin/base-strata-bench-read"
  BASE_READER=$TMP/bin/base-strata-bench-read
fi

if [[ -z $FILE ]]; then
  FILE=$TMP/big.data
  echo "Recording perf bench sched pipe -l $LOOPS into $FILE ..." >&2
  perf record -q -m 16M -a -o "$FILE" \
    -e sched:sched_switch -e sched:sched_wakeup -e sched:sched_waking \
    -e sched:sched_stat_runtime -- perf bench sched pipe -l "$LOOPS" > /dev/null 2>&1
fi

SAMPLES=$(perf report --stats -i "$FILE" 2>/dev/null | awk '/SAMPLE events:/ { print $3; exit }')
ROUNDS=$(perf report --stats -i "$FILE" 2>/dev/null | awk '/FINISHED_ROUND events:/ { print $3; exit }')
SIZE=$(du -m "$FILE" | cut -f1)
# The file in the page cache before anything is timed.
cat "$FILE" > /dev/null
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)

declare -A WALL CPU RSS NRUNS CMD
KEYS=()

row_def () {
  local key=$1; shift
  KEYS+=("$key")
  CMD[$key]="$*"
  WALL[$key]=""
  CPU[$key]=""
  RSS[$key]=0
  NRUNS[$key]=0
}

# once KEY: runs KEY's command once (stdout to /dev/null), appends its wall
# and CPU seconds, keeps the largest maximum RSS.
once () {
  local key=$1 t0 t1 rss cpu
  local cmd=${CMD[$key]//@IDX@/$TMP/index-$RANDOM.strata-index}

  t0=$(date +%s%N)
  # shellcheck disable=SC2086
  if ! "$TIME" -f '%M %U %S' -o "$TMP/time" $cmd > /dev/null 2> "$TMP/err"; then
    echo "error: $cmd failed:" >&2
    cat "$TMP/err" >&2
    exit 1
  fi
  t1=$(date +%s%N)
  rm -f "$TMP"/index-*.strata-index
  read -r rss u s < <(tail -n 1 "$TMP/time")
  cpu=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')
  WALL[$key]+="$(( t1 - t0 )) "
  CPU[$key]+="$cpu "
  (( rss > RSS[$key] )) && RSS[$key]=$rss
  NRUNS[$key]=$(( NRUNS[$key] + 1 ))
}

median () {
  printf '%s\n' $1 | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

if [[ -n ${BASE_READER:-} ]]; then
  row_def base-read "$BASE_READER $FILE"
fi
row_def read "$READER $FILE"
row_def read-ahead "$READER --read-ahead $FILE"
if [[ -n ${BASE_CLI:-} ]]; then
  row_def base-index "$BASE_CLI index --force --index=@IDX@ $FILE"
fi
row_def index "$CLI index --force --index=@IDX@ $FILE"
if [[ -n ${BASE_CLI:-} ]]; then
  row_def base-stats "$BASE_CLI stats --no-index $FILE"
fi
row_def stats "$CLI stats --no-index $FILE"
row_def timehist "perf sched timehist -s -i $FILE"
row_def script "perf script -i $FILE"

for ((round = 0; round < RUNS; round++)); do
  echo "round $((round + 1)) of $RUNS ..." >&2
  for key in "${KEYS[@]}"; do
    if [[ $key == script && $round -gt 0 ]]; then
      continue
    fi
    once "$key"
  done
done

declare -A T C
for key in "${KEYS[@]}"; do
  T[$key]=$(median "${WALL[$key]}" | awk '{ printf "%.3f", $1 / 1e9 }')
  C[$key]=$(median "${CPU[$key]}")
done

label () {
  case $1 in
    base-read) echo "strata-bench-read, base build" ;;
    read) echo "strata-bench-read (the reader alone)" ;;
    read-ahead) echo "strata-bench-read --read-ahead (the reader alone, read-ahead thread)" ;;
    base-index) echo "strata-cli index --force, base build" ;;
    index) echo "strata-cli index --force (reader, model, zoom tree, index written)" ;;
    base-stats) echo "strata-cli stats --no-index, base build" ;;
    stats) echo "strata-cli stats --no-index (reader, model, statistics)" ;;
    timehist) echo "perf sched timehist -s" ;;
    script) echo "perf script > /dev/null" ;;
  esac
}

echo "## Strata perf.data benchmark"
echo
echo "$(uname -r), $(nproc) CPUs, $(perf --version); $SAMPLES tracepoint samples, ${SIZE} MB, $ROUNDS FINISHED_ROUND records; load average before: $LOAD_BEFORE"
echo
echo "| command | runs | median wall s | median CPU s | samples/s | perf script / this | timehist / this | peak RSS |"
echo "|---|---|---|---|---|---|---|---|"
for key in "${KEYS[@]}"; do
  awk -v tool="$(label "$key")" -v runs="${NRUNS[$key]}" -v t="${T[$key]}" -v c="${C[$key]}" \
      -v kb="${RSS[$key]}" -v s="$SAMPLES" -v script="${T[script]}" -v th="${T[timehist]}" 'BEGIN {
    printf "| %s | %d | %.3f | %.2f | %.2f M | %.1fx | %.2fx | %.0f MB |\n",
           tool, runs, t, c, s / t / 1e6, script / t, th / t, kb / 1024
  }'
done
echo
awk -v r="${T[read]}" -v i="${T[index]}" -v st="${T[stats]}" 'BEGIN {
  printf "The reader alone is %.0f%% of the index time and %.0f%% of stats --no-index.\n",
         100 * r / i, 100 * r / st
}'
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
