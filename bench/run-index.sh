#!/usr/bin/env bash
# run-index.sh — the persistent index benchmark. On a generated trace.dat
# (uncompressed v7, and its zstd twin of the same seed) it times building
# the index (`strata-cli index --force`) against the bare libtracecmd
# iteration of the same file and `trace-cmd report > /dev/null`, with the
# peak RSS of each; the index's size over the uncompressed trace's; and,
# in fresh processes once the index exists, the open through the index to
# the first answer and the latency of display requests on the mapped tree
# (bench/strata-bench-index). Medians of RUNS runs; trace-cmd report once.
#
# Usage: bench/run-index.sh [BUILD_DIR]   (default: _build)
# Environment: EVENTS (default 20000000), CPUS (8), THREADS (256), SEED (1),
#              RUNS (3), DIR (a folder for the traces and indexes; default a
#              temporary one, removed at the end unless KEEP=1; traces
#              already there are reused), FILES ("plain zstd": which of the
#              two traces), VARINT (1: also build the uncompressed trace's
#              index with varints only, STRATA_INDEX_ZSTD_LEVEL=0, and
#              measure its size and its second open the same way).

set -euo pipefail

BUILD=${1:-_build}
EVENTS=${EVENTS:-20000000}
CPUS=${CPUS:-8}
THREADS=${THREADS:-256}
SEED=${SEED:-1}
RUNS=${RUNS:-3}

GEN=$BUILD/bench/strata-gen-trace
ITER=$BUILD/bench/strata-bench-iterate
OPEN=$BUILD/bench/strata-bench-index
CLI=$BUILD/src/cli/strata-cli
TIME=/usr/bin/time

for tool in "$GEN" "$ITER" "$OPEN" "$CLI"; do
  [[ -x $tool ]] || { echo "error: $tool not found; build first (ninja -C $BUILD)" >&2; exit 1; }
done
[[ -x $TIME ]] || { echo "error: $TIME not found (apt-get install time)" >&2; exit 1; }
command -v trace-cmd >/dev/null || { echo "error: trace-cmd not found" >&2; exit 1; }

if [[ -n ${DIR:-} ]]; then
  TMP=$DIR
  mkdir -p "$TMP"
else
  TMP=$(mktemp -d /tmp/strata-index-XXXXXX)
  [[ ${KEEP:-0} == 1 ]] || trap 'rm -rf "$TMP"' EXIT
fi

gen () {
  local out=$1; shift
  if [[ ! -f $out ]]; then
    echo "Generating $out ($EVENTS events, $CPUS CPUs, $THREADS threads, seed $SEED) ..." >&2
    "$GEN" --events "$EVENTS" --cpus "$CPUS" --threads "$THREADS" --seed "$SEED" "$@" -o "$out" >&2
  fi
}
FILES=${FILES:-plain zstd}
gen "$TMP/trace.dat"
[[ $FILES == *zstd* ]] && gen "$TMP/trace-zstd.dat" --compression zstd

# measure N CMD... : sets MEDIAN (s, wall clock) and PEAK_KB (largest max RSS).
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
  MEDIAN=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (n + 1) / 2 ))p" | awk '{ printf "%.3f", $1 / 1e9 }')
  PEAK_KB=$peak
}

# median_of KEY FILE... : the median of KEY's value over the files.
median_of () {
  local key=$1; shift
  grep -h "^$key " "$@" | awk '{ print $2 }' | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

row () {
  awk -v tool="$1" -v runs="$2" -v t="$3" -v kb="$4" -v base="$5" 'BEGIN {
    printf "| %s | %d | %.3f | %.2fx | %.2fx | %.0f MB |\n", tool, runs, t, t / base, base / t, kb / 1024 }'
}

UNCOMPRESSED=$(stat -c %s "$TMP/trace.dat")

bench_file () {
  local label=$1 file=$2 index="$TMP/$(basename "$2").strata-index" base base_kb report report_kb build build_kb
  local size
  size=$(stat -c %s "$file")

  measure "$RUNS" "$ITER" "$file"; base=$MEDIAN; base_kb=$PEAK_KB
  measure 1 sh -c "trace-cmd report -i '$file' > /dev/null"; report=$MEDIAN; report_kb=$PEAK_KB
  measure "$RUNS" "$CLI" index --force --index "$index" "$file"; build=$MEDIAN; build_kb=$PEAK_KB

  for ((i = 0; i < RUNS; i++)); do
    "$OPEN" --index "$index" "$file" > "$TMP/open.$i"
  done

  echo
  echo "### $label ($EVENTS events, $(( size / 1048576 )) MiB)"
  echo
  echo "| what | runs | median s | time vs bare iteration | bare iteration / time | peak RSS |"
  echo "|---|---|---|---|---|---|"
  row "strata-bench-iterate (bare libtracecmd, merged)" "$RUNS" "$base" "$base_kb" "$base"
  row "trace-cmd report > /dev/null" 1 "$report" "$report_kb" "$base"
  row "strata-cli index --force (the pass and the write)" "$RUNS" "$build" "$build_kb" "$base"
  echo
  awk -v b="$build" -v r="$report" 'BEGIN { printf "Index build vs trace-cmd report: %.1fx faster.\n", r / b }'
  local isize
  isize=$(stat -c %s "$index")
  awk -v i="$isize" -v u="$UNCOMPRESSED" -v s="$size" 'BEGIN {
    printf "Index: %.0f MiB, %.2fx the uncompressed trace, %.2fx this file.\n", i / 1048576, i / u, i / s }'
  echo
  echo "Second open, in a fresh process (page cache warm), medians of $RUNS:"
  echo
  echo "| open ms | first answer ms | open to first answer ms | query p50 µs | p90 µs | p99 µs | max µs | again: p50 µs | again: p99 µs | peak RSS of the reader | of which its own (anon) | mapped file pages |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
  printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %.0f MB | %.0f MB | %.0f MB |\n' \
    "$(median_of open_ms "$TMP"/open.*)" "$(median_of first_query_ms "$TMP"/open.*)" \
    "$(median_of open_to_first_answer_ms "$TMP"/open.*)" "$(median_of query_p50_us "$TMP"/open.*)" \
    "$(median_of query_p90_us "$TMP"/open.*)" "$(median_of query_p99_us "$TMP"/open.*)" \
    "$(median_of query_max_us "$TMP"/open.*)" "$(median_of query_warm_p50_us "$TMP"/open.*)" \
    "$(median_of query_warm_p99_us "$TMP"/open.*)" "$(( $(median_of peak_rss_kb "$TMP"/open.*) / 1024 ))" \
    "$(( $(median_of rss_anon_kb "$TMP"/open.*) / 1024 ))" "$(( $(median_of rss_file_kb "$TMP"/open.*) / 1024 ))"
}

echo "## Index benchmark: $(uname -r), $(nproc) CPUs, $(trace-cmd --version 2>&1 | grep -m1 version | tr -d '\n'), seed $SEED"
[[ $FILES == *plain* ]] && bench_file "trace.dat v7, uncompressed" "$TMP/trace.dat"
[[ $FILES == *zstd* ]] && bench_file "trace.dat v7, zstd" "$TMP/trace-zstd.dat"
if [[ ${VARINT:-0} == 1 ]]; then
  export STRATA_INDEX_ZSTD_LEVEL=0
  cp "$TMP/trace.dat" "$TMP/trace-varint.dat"
  touch -r "$TMP/trace.dat" "$TMP/trace-varint.dat"
  bench_file "trace.dat v7, uncompressed; the index in varints only (no zstd)" "$TMP/trace-varint.dat"
  rm -f "$TMP/trace-varint.dat"
fi
exit 0
