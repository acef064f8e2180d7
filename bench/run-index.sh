#!/usr/bin/env bash
# run-index.sh — the persistent index benchmark, on every shape of trace
# (issue 25's acceptance). For each shape of bench/strata-gen-trace (bench:
# a mostly idle desktop; dense: 8 CPUs, 2000 threads all busy; churn: about
# a million short-lived threads) and each size, on a generated trace.dat
# (uncompressed v7; a zstd twin of the same seed if asked), it times
# building the index (`strata-cli index --force`) against the bare
# libtracecmd iteration of the same file, the two alternated run by run,
# with the peak RSS of each; the index's size; and, in fresh processes
# once the index exists, the open through the index to the first answer
# and the latency of display requests on the mapped tree
# (bench/strata-bench-index). Then the app's first open of one shape
# (bench/strata-bench-load: a window under xvfb-run, drawing while it
# loads) alternated with `strata-cli index` on the same file, and the app
# on a tiny trace (what the app itself holds). Medians of RUNS runs; the
# summary at the end checks each line against the issue's targets.
#
# Usage: bench/run-index.sh [BUILD_DIR]   (default: _build; measure with a
#        release build, e.g. _build-release)
# Environment: SHAPES ("bench dense churn"), SIZES (events per trace,
#              "20000000"; "20000000 80000000" for the 80M runs too),
#              SEED (1), RUNS (3), DIR (a folder for the traces and
#              indexes; default a temporary one, removed at the end unless
#              KEEP=1; traces already there are reused), FILES ("plain", or
#              "plain zstd" for the zstd twin too), REPORT (1: also time
#              `trace-cmd report > /dev/null` once a file), VARINT (1: also
#              the bench shape's index in varints only,
#              STRATA_INDEX_ZSTD_LEVEL=0), APP (the shape whose first open
#              in the app is measured, "dense"; "" for none), QUERIES (1000
#              random viewports of 60 rows), INDEX (0: only the app's
#              open, not the index benchmark), LOAD (another build of
#              strata-bench-load to measure, e.g. one kept from before a
#              change).

set -euo pipefail

BUILD=${1:-_build}
SHAPES=${SHAPES:-bench dense churn}
SIZES=${SIZES:-20000000}
SEED=${SEED:-1}
RUNS=${RUNS:-3}
FILES=${FILES:-plain}
REPORT=${REPORT:-0}
APP=${APP-dense}
QUERIES=${QUERIES:-1000}

GEN=$BUILD/bench/strata-gen-trace
ITER=$BUILD/bench/strata-bench-iterate
OPEN=$BUILD/bench/strata-bench-index
LOAD=${LOAD:-$BUILD/bench/strata-bench-load}
CLI=$BUILD/src/cli/strata-cli
TIME=/usr/bin/time

for tool in "$GEN" "$ITER" "$OPEN" "$CLI"; do
  [[ -x $tool ]] || { echo "error: $tool not found; build first (ninja -C $BUILD)" >&2; exit 1; }
done
[[ -x $TIME ]] || { echo "error: $TIME not found (apt-get install time)" >&2; exit 1; }
command -v trace-cmd >/dev/null || { echo "error: trace-cmd not found" >&2; exit 1; }
if [[ -n $APP ]]; then
  [[ -x $LOAD ]] || { echo "error: $LOAD not found; build first (ninja -C $BUILD)" >&2; exit 1; }
  command -v xvfb-run >/dev/null || { echo "error: xvfb-run not found (apt-get install xvfb), or APP=" >&2; exit 1; }
fi

if [[ -n ${DIR:-} ]]; then
  TMP=$DIR
  mkdir -p "$TMP"
else
  TMP=$(mktemp -d /tmp/strata-index-XXXXXX)
  [[ ${KEEP:-0} == 1 ]] || trap 'rm -rf "$TMP"' EXIT
fi
SUMMARY=$TMP/summary.md
: > "$SUMMARY"

# gen OUT SHAPE EVENTS [ARGS...]
gen () {
  local out=$1 shape=$2 events=$3; shift 3
  if [[ ! -f $out ]]; then
    echo "Generating $out ($shape shape, $events events, seed $SEED) ..." >&2
    "$GEN" --shape "$shape" --events "$events" --seed "$SEED" "$@" -o "$out" >&2
  fi
}

# run_once OUT CMD... : runs CMD once; appends its wall time (ns) to
# OUT.t, its max RSS (KB) to OUT.kb and its CPU time (user + system, ns)
# to OUT.cpu: on a machine shared with other work the CPU time is the
# steadier measure.
run_once () {
  local out=$1; shift
  local t0 t1
  t0=$(date +%s%N)
  "$TIME" -f '%M %U %S' -o "$TMP/rss" "$@" > /dev/null
  t1=$(date +%s%N)
  echo "$(( t1 - t0 ))" >> "$out.t"
  tail -n 1 "$TMP/rss" | awk '{ print $1 }' >> "$out.kb"
  tail -n 1 "$TMP/rss" | awk '{ printf "%.0f\n", ($2 + $3) * 1e9 }' >> "$out.cpu"
}

# median FILE : the median of a file's numbers; largest FILE : their max.
median () {
  sort -g "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
largest () {
  sort -g "$1" | tail -n 1
}
seconds () {
  awk -v n="$1" 'BEGIN { printf "%.3f", n / 1e9 }'
}

# median_of KEY FILE... : the median of KEY's value over the files.
median_of () {
  local key=$1; shift
  grep -h "^$key " "$@" | awk '{ print $2 }' | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# row TOOL RUNS WALL KB BASE_WALL CPU BASE_CPU
row () {
  awk -v tool="$1" -v runs="$2" -v t="$3" -v kb="$4" -v base="$5" -v cpu="$6" -v bcpu="$7" 'BEGIN {
    printf "| %s | %d | %.3f | %.2fx | %.2f | %.2fx | %.0f MiB |\n", tool, runs, t, t / base, cpu, cpu / bcpu, kb / 1024 }'
}

verdict () {
  awk -v v="$1" -v limit="$2" 'BEGIN { print (v + 0 <= limit + 0) ? "yes" : "**no**" }'
}

# bench_file LABEL FILE SHAPE EVENTS
bench_file () {
  local label=$1 file=$2 shape=$3 events=$4
  local index="$TMP/$(basename "$file").strata-index" m="$TMP/m.$(basename "$file")"
  local size base base_kb base_cpu build build_kb build_cpu build_peak report report_kb report_cpu ratio cpu_ratio
  size=$(stat -L -c %s "$file")
  rm -f "$m".*

  # The bare iteration and the build, alternated run by run, so a busy
  # machine slows both alike.
  for ((i = 0; i < RUNS; i++)); do
    run_once "$m.iter" "$ITER" "$file"
    run_once "$m.build" "$CLI" index --force --index "$index" "$file"
  done
  base=$(seconds "$(median "$m.iter.t")"); base_kb=$(median "$m.iter.kb"); base_cpu=$(seconds "$(median "$m.iter.cpu")")
  build=$(seconds "$(median "$m.build.t")"); build_kb=$(median "$m.build.kb"); build_cpu=$(seconds "$(median "$m.build.cpu")")
  build_peak=$(largest "$m.build.kb")
  if [[ $REPORT == 1 ]]; then
    run_once "$m.report" sh -c "trace-cmd report -i '$file' > /dev/null"
    report=$(seconds "$(median "$m.report.t")"); report_kb=$(median "$m.report.kb"); report_cpu=$(seconds "$(median "$m.report.cpu")")
  fi

  for ((i = 0; i < RUNS; i++)); do
    "$OPEN" --index "$index" --queries "$QUERIES" "$file" > "$m.open.$i"
  done

  echo
  echo "### $label ($events events, $(( size / 1048576 )) MiB)"
  echo
  echo "| what | runs | median wall s | wall vs bare iteration | median CPU s (user + sys) | CPU vs bare iteration | peak RSS (median) |"
  echo "|---|---|---|---|---|---|---|"
  row "strata-bench-iterate (bare libtracecmd, merged)" "$RUNS" "$base" "$base_kb" "$base" "$base_cpu" "$base_cpu"
  [[ $REPORT == 1 ]] && row "trace-cmd report > /dev/null" 1 "$report" "$report_kb" "$base" "$report_cpu" "$base_cpu"
  row "strata-cli index --force (the pass and the write)" "$RUNS" "$build" "$build_kb" "$base" "$build_cpu" "$base_cpu"
  echo
  echo "Runs, bare iteration / index build, wall s: $(paste -d/ "$m.iter.t" "$m.build.t" | awk -F/ '{ printf "%s%.2f / %.2f", (NR > 1 ? ", " : ""), $1 / 1e9, $2 / 1e9 }'); CPU s: $(paste -d/ "$m.iter.cpu" "$m.build.cpu" | awk -F/ '{ printf "%s%.2f / %.2f", (NR > 1 ? ", " : ""), $1 / 1e9, $2 / 1e9 }'); largest build RSS $(( build_peak / 1024 )) MiB."
  local isize
  isize=$(stat -L -c %s "$index")
  awk -v i="$isize" -v s="$size" 'BEGIN { printf "Index: %.0f MiB, %.2fx the trace.\n", i / 1048576, i / s }'
  echo
  echo "Second open, in a fresh process (page cache warm), $QUERIES random viewports of 60 rows, medians of $RUNS:"
  echo
  echo "| open ms | first answer ms | open to first answer ms | query p50 µs | p90 µs | p99 µs | max µs | again: p50 µs | again: p99 µs | peak RSS of the reader | of which its own (anon) | mapped file pages |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
  local f=("$m".open.*)
  local first p50 p99
  first=$(median_of open_to_first_answer_ms "${f[@]}")
  p50=$(median_of query_p50_us "${f[@]}")
  p99=$(median_of query_p99_us "${f[@]}")
  printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %.0f MiB | %.0f MiB | %.0f MiB |\n' \
    "$(median_of open_ms "${f[@]}")" "$(median_of first_query_ms "${f[@]}")" "$first" "$p50" \
    "$(median_of query_p90_us "${f[@]}")" "$p99" "$(median_of query_max_us "${f[@]}")" \
    "$(median_of query_warm_p50_us "${f[@]}")" "$(median_of query_warm_p99_us "${f[@]}")" \
    "$(( $(median_of peak_rss_kb "${f[@]}") / 1024 ))" "$(( $(median_of rss_anon_kb "${f[@]}") / 1024 ))" \
    "$(( $(median_of rss_file_kb "${f[@]}") / 1024 ))"

  ratio=$(awk -v b="$build" -v a="$base" 'BEGIN { printf "%.2f", b / a }')
  cpu_ratio=$(awk -v b="$build_cpu" -v a="$base_cpu" 'BEGIN { printf "%.2f", b / a }')
  printf '| %s | %s | %sx (%s) | %sx | %d MiB (%s) | %s µs (%s) | %s µs (%s) | %s ms (%s) |\n' \
    "$label" "$events" "$ratio" "$(verdict "$ratio" 2.0)" "$cpu_ratio" "$(( build_peak / 1024 ))" \
    "$(verdict $(( build_peak / 1024 )) 256)" "$p50" "$(verdict "$p50" 199.999)" \
    "$p99" "$(verdict "$p99" 3999.999)" "$first" "$(verdict "$first" 49.999)" >> "$SUMMARY"
}

# The app's first open against the CLI's index build on the same file,
# alternated; the app's time is from strata_window_open() to the finished
# trace on screen (the index written and mapped), as bench/strata-bench-load
# reports it, its peak RSS its own (not Xvfb's).
bench_app () {
  local file=$1 events=$2 m="$TMP/m.app" tiny="$TMP/tiny.dat"
  local cli cli_kb cli_cpu app app_kb app_peak app_cpu frames base_kb base_cpu ratio cpu_ratio
  rm -f "$m".*
  for ((i = 0; i < RUNS; i++)); do
    rm -rf "$TMP/app-index"; mkdir -p "$TMP/app-index"
    run_once "$m.cli" "$CLI" index --force --index "$TMP/app-index/cli.idx" "$file"
    rm -rf "$TMP/app-index"; mkdir -p "$TMP/app-index"
    STRATA_INDEX_DIR=$TMP/app-index GDK_BACKEND=x11 GSK_RENDERER=cairo \
      xvfb-run -a -s "-screen 0 1920x1200x24" "$LOAD" "$file" > "$m.load.$i" 2> "$m.err" || {
        echo "error: strata-bench-load failed:" >&2; cat "$m.err" >&2; exit 1; }
    grep '^load_s ' "$m.load.$i" | awk '{ printf "%.0f\n", $2 * 1e9 }' >> "$m.app.t"
    grep '^peak_rss_kb ' "$m.load.$i" | awk '{ print $2 }' >> "$m.app.kb"
    awk '$1 == "user_s" || $1 == "sys_s" { s += $2 } END { printf "%.0f\n", s * 1e9 }' "$m.load.$i" >> "$m.app.cpu"
  done
  rm -rf "$TMP/app-index"; mkdir -p "$TMP/app-index"
  gen "$tiny" bench 1000
  STRATA_INDEX_DIR=$TMP/app-index GDK_BACKEND=x11 GSK_RENDERER=cairo \
    xvfb-run -a -s "-screen 0 1920x1200x24" "$LOAD" "$tiny" > "$m.tiny" 2> "$m.err" || {
      echo "error: strata-bench-load failed:" >&2; cat "$m.err" >&2; exit 1; }
  rm -rf "$TMP/app-index"
  cli=$(seconds "$(median "$m.cli.t")"); cli_kb=$(median "$m.cli.kb"); cli_cpu=$(seconds "$(median "$m.cli.cpu")")
  app=$(seconds "$(median "$m.app.t")"); app_kb=$(median "$m.app.kb"); app_peak=$(largest "$m.app.kb")
  app_cpu=$(seconds "$(median "$m.app.cpu")")
  base_kb=$(median_of peak_rss_kb "$m.tiny")
  base_cpu=$(awk '$1 == "user_s" || $1 == "sys_s" { s += $2 } END { printf "%.3f", s }' "$m.tiny")
  cpu_ratio=$(awk -v a="$app_cpu" -v c="$cli_cpu" 'BEGIN { printf "%.2f", a / c }')
  frames=$(median_of frames "$m".load.*)
  ratio=$(awk -v a="$app" -v c="$cli" 'BEGIN { printf "%.2f", a / c }')

  echo
  echo "### The app's first open: $APP shape, $events events"
  echo
  echo "A 1920x1080 window under xvfb-run (cairo renderer) opens the file through strata_window_open(), drawing the"
  echo "timeline while it loads ($frames frames, median), until it shows the finished trace; alternated with"
  echo "\`strata-cli index --force\` on the same file, medians of $RUNS:"
  echo
  echo "| what | median wall s | vs strata-cli index | median CPU s (user + sys) | vs strata-cli index | peak RSS (median) |"
  echo "|---|---|---|---|---|---|"
  printf '| strata-cli index --force | %s | 1.00x | %s | 1.00x | %d MiB |\n' "$cli" "$cli_cpu" "$(( cli_kb / 1024 ))"
  printf '| the app (strata-bench-load) | %s | %sx | %s | %sx | %d MiB |\n' "$app" "$ratio" "$app_cpu" "$cpu_ratio" "$(( app_kb / 1024 ))"
  printf '| the app on a 1000-event trace | %s | | %s | | %d MiB |\n' "$(median_of load_s "$m.tiny")" "$base_cpu" "$(( base_kb / 1024 ))"
  echo
  echo "The app's wall time runs from strata_window_open() to the finished trace on screen; its CPU time is the whole"
  echo "process's, GTK's start-up included (the tiny trace's row shows how much that is)."
  echo "Runs, CLI / app, wall s: $(paste -d/ "$m.cli.t" "$m.app.t" | awk -F/ '{ printf "%s%.2f / %.2f", (NR > 1 ? ", " : ""), $1 / 1e9, $2 / 1e9 }')."
  echo "Peak RSS split (medians): the pass (strata-cli) $(( cli_kb / 1024 )) MiB; the app $(( app_kb / 1024 )) MiB, of which"
  echo "$(( base_kb / 1024 )) MiB is the app with a tiny trace (GTK, fonts, the window) and $(( (app_kb - cli_kb) / 1024 )) MiB more than the CLI's pass."
  printf '| app first open, %s | %s | %sx the CLI (%s) | %sx the CLI | %d MiB (%s) | | | |\n' \
    "$APP" "$events" "$ratio" "$(verdict "$ratio" 1.2)" "$cpu_ratio" "$(( app_peak / 1024 ))" \
    "$(verdict $(( app_peak / 1024 )) 300)" >> "$SUMMARY"
}

echo "## Index benchmark, every shape: $(uname -r), $(nproc) CPUs, $(trace-cmd --version 2>&1 | grep -m1 version | tr -d '\n'), seed $SEED, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
for events in $SIZES; do
  for shape in $SHAPES; do
    file="$TMP/$shape-$events.dat"
    gen "$file" "$shape" "$events"
    [[ ${INDEX:-1} == 1 && $FILES == *plain* ]] && bench_file "$shape" "$file" "$shape" "$events"
    if [[ ${INDEX:-1} == 1 && $FILES == *zstd* ]]; then
      gen "$TMP/$shape-$events-zstd.dat" "$shape" "$events" --compression zstd
      bench_file "$shape, zstd" "$TMP/$shape-$events-zstd.dat" "$shape" "$events"
    fi
    if [[ ${INDEX:-1} == 1 && ${VARINT:-0} == 1 && $shape == bench ]]; then
      export STRATA_INDEX_ZSTD_LEVEL=0
      cp "$file" "$TMP/varint-$events.dat"
      touch -r "$file" "$TMP/varint-$events.dat"
      bench_file "bench, index in varints only (no zstd)" "$TMP/varint-$events.dat" "$shape" "$events"
      rm -f "$TMP/varint-$events.dat"
      unset STRATA_INDEX_ZSTD_LEVEL
    fi
    if [[ -n $APP && $shape == "$APP" && $events == "${SIZES%% *}" ]]; then
      bench_app "$file" "$events"
    fi
  done
done

echo
echo "### Against issue 25's targets"
echo
echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg). Build: ≤ 2.0x the bare iteration; peak RSS ≤ 256 MiB (the app ≤ 300 MiB,"
echo "within 1.2x of the CLI); queries p50 < 200 µs, p99 < 4 ms; open to first answer < 50 ms."
echo
echo "| shape | events | index build / bare iteration, wall | the same, CPU | peak RSS (largest) | query p50 | query p99 | open to first answer |"
echo "|---|---|---|---|---|---|---|---|"
cat "$SUMMARY"
exit 0
