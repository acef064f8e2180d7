#!/usr/bin/env bash
# run-zoom-tree.sh — the zoom-tree benchmark: how long the tree takes to
# build from a generated activity stream and how much memory it takes,
# compared with only generating the stream and only filling the raw store;
# how fast random one-screen viewports are answered at every zoom level,
# compared with the Nanoscope visualizer's per-level lists; what the
# density threshold T changes; whether a second thread pays. Every
# measurement runs in a process of its own (peak RSS is that process's) and
# the tables are printed as markdown.
#
# A size whose tree would not fit in the memory available (estimated from
# the largest smaller size's peak RSS per activity) is first tried under a
# memory limit, to show where it stops, and then built with T = BIG_T.
#
# Usage: bench/run-zoom-tree.sh [BUILD_DIR]   (default: _build)
# Environment: SIZES ("1M 10M 100M"), RUNS (3; medians of RUNS processes),
#              BIG_RUNS (1, the runs above 10M), QUERIES (2000 per level),
#              SEED (1), EXTRA_KINDS ("many-threads long-sleeps", built at
#              the sizes up to 10M), BIG_T (65536), TRY_UNFIT (1: try the
#              size that does not fit, under a limit), PROFILE_BUILD (a
#              build dir configured with -Dc_args='-g -fno-omit-frame-pointer'
#              for the perf section; skipped when empty), MEM_BUDGET_KB
#              (the memory a size may use; default MemAvailable).

set -euo pipefail

BUILD=${1:-_build}
SIZES=${SIZES:-"1M 10M 100M"}
RUNS=${RUNS:-3}
BIG_RUNS=${BIG_RUNS:-1}
QUERIES=${QUERIES:-2000}
SEED=${SEED:-1}
EXTRA_KINDS=${EXTRA_KINDS:-"many-threads long-sleeps"}
BIG_T=${BIG_T:-65536}
TRY_UNFIT=${TRY_UNFIT:-1}
PROFILE_BUILD=${PROFILE_BUILD:-}

BENCH=$BUILD/bench/strata-bench-zoom
if [[ ! -x $BENCH ]]; then
  echo "error: $BENCH not found; build first (meson setup $BUILD --buildtype=release && ninja -C $BUILD)" >&2
  exit 1
fi

TMP=$(mktemp -d /tmp/strata-zoom-tree-XXXXXX)
trap 'rm -rf "$TMP"' EXIT

# count 10M -> 10000000
count () {
  local s=$1 m=1
  case $s in
    *k|*K) m=1000; s=${s%?} ;;
    *m|*M) m=1000000; s=${s%?} ;;
    *g|*G) m=1000000000; s=${s%?} ;;
  esac
  echo $(( s * m ))
}

# kv "LINE" KEY -> the value of KEY=... in LINE
kv () {
  sed -n "s/.*\\b$2=\\([^ ]*\\).*/\\1/p" <<< "$1"
}

# median of the numbers on stdin
median () {
  sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else print v[int((NR + 1) / 2)] }'
}

mem_available_kb () {
  if [[ -n ${MEM_BUDGET_KB:-} ]]; then
    echo "$MEM_BUDGET_KB"
  else
    awk '/^MemAvailable:/ { print $2 }' /proc/meminfo
  fi
}

log () {
  echo "$@" >&2
}

# build_runs N_RUNS ARGS... : runs `strata-bench-zoom build ARGS` N_RUNS
# times; LINES holds the output lines (one per run), MED_WALL and MED_CPU
# the medians, PEAK the largest peak RSS (KiB) and LAST the last run's line.
build_runs () {
  local n=$1; shift
  local out
  LINES=()
  for ((i = 0; i < n; i++)); do
    out=$("$BENCH" build "$@" | head -n 1)
    LINES+=("$out")
  done
  MED_WALL=$(for l in "${LINES[@]}"; do kv "$l" wall_s; done | median)
  MED_CPU=$(for l in "${LINES[@]}"; do kv "$l" cpu_s; done | median)
  PEAK=$(for l in "${LINES[@]}"; do kv "$l" rss_kb; done | sort -n | tail -n 1)
  LAST=${LINES[-1]}
}

runs_for () {
  if (( $(count "$1") > 10000000 )); then echo "$BIG_RUNS"; else echo "$RUNS"; fi
}

# KiB -> GiB, one decimal
gib () {
  awk -v k="$1" 'BEGIN { printf "%.1f", k / 1048576 }'
}

# ---- The machine ----

echo "## Strata zoom-tree benchmark"
echo
echo "$(nproc) CPUs ($(lscpu | sed -n 's/^Model name: *//p' | head -n 1)), $(awk '/^MemTotal:/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo) RAM," \
     "kernel $(uname -r); load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)," \
     "CPU pressure avg60 $(sed -n 's/^some .*avg60=\([^ ]*\).*/\1/p' /proc/pressure/cpu 2>/dev/null || echo '?')%."
echo "Sizes: $SIZES; medians of $RUNS processes (of $BIG_RUNS above 10M); $QUERIES queries per level; seed $SEED."

# ---- Build ----

declare -A T_FOR          # "kind size" -> the T the size was built with
declare -A RSS_PER_ACT    # kind -> peak RSS bytes per activity at the largest size built
declare -A DETAIL         # "kind size" -> the --detail lines

build_table_header () {
  echo
  echo "| kind | activities | T | runs | stream only s | raw store only s | tree s | tree CPU s | tree − stream s | activities/s | peak RSS MiB | raw store MiB | tree MiB | tree / raw | levels | buffers | pre-calculated chunks per level |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
}

build_size () {
  local kind=$1 size=$2 detail=$3
  local n runs gen raw t=0 predicted avail extra=()
  n=$(count "$size")
  runs=$(runs_for "$size")

  # Would the default tree fit?
  if [[ -n ${RSS_PER_ACT[$kind]:-} ]]; then
    predicted=$(awk -v r="${RSS_PER_ACT[$kind]}" -v n="$n" 'BEGIN { printf "%.0f", r * n / 1024 }')
    avail=$(mem_available_kb)
    if (( predicted > avail * 85 / 100 )); then
      local limit=$(( avail * 85 / 100 )) reached stopped
      log "$kind $size: the tree would need about $(gib "$predicted") GiB, $(gib "$avail") GiB available"
      UNFIT+=("$kind $size: the default tree (T = 1000) would need about $(gib "$predicted") GiB of RSS (extrapolated from the largest smaller size's peak RSS per activity); $(gib "$avail") GiB are available. It is built with T = $BIG_T instead.")
      if [[ $TRY_UNFIT == 1 ]]; then
        log "  trying it under a limit of $(gib "$limit") GiB of address space"
        rc=0
        ( ulimit -c 0; exec prlimit --as=$(( limit * 1024 )) "$BENCH" build -k "$kind" -n "$size" -s "$SEED" \
            --progress 5M > "$TMP/unfit.out" 2> "$TMP/unfit.err" ) || rc=$?
        reached=$(grep '^progress' "$TMP/unfit.err" | tail -n 1 | sed 's/^progress: //' || true)
        stopped=$(grep -v -e '^progress' -e '^$' "$TMP/unfit.err" | head -n 1 | cut -c1-200 || true)
        UNFIT+=("Tried under a $(gib "$limit") GiB address-space limit: exit status $rc; last progress report: ${reached:-none}; then: ${stopped:-nothing on stderr}")
      fi
      t=$BIG_T
      extra=(-t "$BIG_T")
    fi
  fi
  T_FOR["$kind $size"]=$t

  log "build: $kind $size (${runs} runs)"
  build_runs "$runs" -k "$kind" -n "$size" -s "$SEED" -m gen
  gen=$MED_WALL
  build_runs "$runs" -k "$kind" -n "$size" -s "$SEED" -m raw
  raw=$MED_WALL
  if [[ $detail == 1 && $runs -gt 1 ]]; then
    build_runs $(( runs - 1 )) -k "$kind" -n "$size" -s "$SEED" -m tree "${extra[@]}"
    local lines=("${LINES[@]}") out
    out=$("$BENCH" build -k "$kind" -n "$size" -s "$SEED" -m tree --detail "${extra[@]}")
    DETAIL["$kind $size"]=$(tail -n +2 <<< "$out")
    lines+=("$(head -n 1 <<< "$out")")
    LINES=("${lines[@]}")
    MED_WALL=$(for l in "${LINES[@]}"; do kv "$l" wall_s; done | median)
    MED_CPU=$(for l in "${LINES[@]}"; do kv "$l" cpu_s; done | median)
    PEAK=$(for l in "${LINES[@]}"; do kv "$l" rss_kb; done | sort -n | tail -n 1)
    LAST=${LINES[-1]}
  else
    build_runs "$runs" -k "$kind" -n "$size" -s "$SEED" -m tree "${extra[@]}"
  fi

  if [[ $t == 0 ]]; then
    RSS_PER_ACT[$kind]=$(awk -v kb="$PEAK" -v n="$n" 'BEGIN { print kb * 1024 / n }')
  fi

  awk -v kind="$kind" -v size="$size" -v n="$n" -v t="$(kv "$LAST" threshold)" -v runs="$runs" -v gen="$gen" -v raw="$raw" \
      -v wall="$MED_WALL" -v cpu="$MED_CPU" -v rss="$PEAK" -v rawb="$(kv "$LAST" raw_bytes)" \
      -v tree="$(kv "$LAST" tree_bytes)" -v ratio="$(kv "$LAST" tree_raw_ratio)" -v levels="$(kv "$LAST" levels)" \
      -v buffers="$(kv "$LAST" buffers)" -v chunks="$(kv "$LAST" chunks | tr ',' ' ')" 'BEGIN {
    printf "| %s | %s | %d | %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f M | %.0f | %.0f | %.0f | %.2f | %d | %d | %s |\n",
      kind, size, t, runs, gen, raw, wall, cpu, wall - gen, n / wall / 1e6, rss / 1024,
      rawb / 1048576, tree / 1048576, ratio, levels, buffers, chunks
  }'
}

UNFIT=()
echo
echo "### Build"
echo
echo "The stream is fed as the kernel model would feed it: every activity added, an advance every 4096 with the horizon at the next start, then finish. \"stream only\" generates the same stream and does nothing with it; \"raw store only\" puts it in a bare StrataRawStore. Times are wall-clock medians; the tree's CPU time (user + system) is less disturbed by other processes."
build_table_header
largest_extra=0
for size in $SIZES; do
  build_size mixed "$size" "$(( $(count "$size") <= 10000000 ))"
done
for kind in $EXTRA_KINDS; do
  for size in $SIZES; do
    (( $(count "$size") <= 10000000 )) || continue
    build_size "$kind" "$size" 0
  done
done
if (( ${#UNFIT[@]} > 0 )); then
  echo
  for line in "${UNFIT[@]}"; do
    echo "- $line"
  done
fi

# ---- What each level holds ----

for key in "${!DETAIL[@]}"; do
  echo
  echo "### What each level's pre-calculated chunks hold ($key activities, T = 1000)"
  echo
  echo "An item stands for \`count\` activities (pieces clipped to the chunk). Where activities per item is close to 1, the level's chunks are a copy of the raw store in 48-byte items."
  echo
  echo "| level | ns/pixel | chunks | items | activities | activities per item | aggregates | instants | MiB | share of the tree |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  total=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^bytes=/) { split($i, a, "="); s += a[2] } } END { print s }' <<< "${DETAIL[$key]}")
  while read -r line; do
    awk -v total="$total" -v level="$(kv "$line" level)" -v px="$(kv "$line" pixel_ns)" -v chunks="$(kv "$line" chunks)" \
        -v items="$(kv "$line" items)" -v rep="$(kv "$line" represented)" -v agg="$(kv "$line" aggregates)" \
        -v inst="$(kv "$line" instants)" -v bytes="$(kv "$line" bytes)" 'BEGIN {
      per = items > 0 ? sprintf("%.2f", rep / items) : "–"
      share = total > 0 ? 100 * bytes / total : 0
      printf "| %d | %d | %d | %d | %d | %s | %d | %d | %.1f | %.0f%% |\n", level, px, chunks, items, rep,
        per, agg, inst, bytes / 1048576, share
    }'
  done <<< "${DETAIL[$key]}"
done

# ---- The density threshold ----

echo
echo "### The density threshold T (mixed, 1M activities, one run each)"
echo
echo "| T | tree s | tree CPU s | peak RSS MiB | tree MiB | tree / raw | buffers | pre-calculated chunks per level |"
echo "|---|---|---|---|---|---|---|---|"
for t in 1000 4096 16384 65536; do
  log "threshold: T = $t"
  line=$("$BENCH" build -n 1M -s "$SEED" -t "$t")
  awk -v t="$t" -v wall="$(kv "$line" wall_s)" -v cpu="$(kv "$line" cpu_s)" -v rss="$(kv "$line" rss_kb)" \
      -v tree="$(kv "$line" tree_bytes)" -v ratio="$(kv "$line" tree_raw_ratio)" -v buffers="$(kv "$line" buffers)" \
      -v chunks="$(kv "$line" chunks | tr ',' ' ')" 'BEGIN {
    printf "| %d | %.2f | %.2f | %.0f | %.0f | %.2f | %d | %s |\n", t, wall, cpu, rss / 1024, tree / 1048576, ratio, buffers, chunks
  }'
done
echo
echo "With T larger than the stream (nothing can be found dense, so no buffer can be cut before the end):"
echo
echo "| activities | T | tree s | tree CPU s | buffers | time / previous |"
echo "|---|---|---|---|---|---|"
prev=
for size in 250k 500k 1M; do
  log "threshold: T = 2^31 at $size"
  line=$("$BENCH" build -n "$size" -s "$SEED" -t 2147483647)
  wall=$(kv "$line" wall_s)
  awk -v n="$(count "$size")" -v wall="$wall" -v cpu="$(kv "$line" cpu_s)" -v buffers="$(kv "$line" buffers)" -v prev="$prev" 'BEGIN {
    printf "| %d | 2^31 | %.2f | %.2f | %d | %s |\n", n, wall, cpu, buffers, prev == "" ? "" : sprintf("%.1fx", wall / prev)
  }'
  prev=$wall
done

# ---- Threads ----

echo
echo "### Would a second thread pay?"
echo
echo "\"pipelined\": the stream is generated by a second thread and handed over in batches of 4096, the tree built in the main thread. \"twin\": two independent trees built at once in two threads (two seeds), to see how this machine scales on the tree's work: with two idle cores twin / tree would be 1.0; \"twin CPU / two trees' CPU\" above 1 is what sharing the memory system costs each build. Both need the other core idle, which the wall-clock columns cannot promise on a shared machine."
echo
echo "| activities | tree s | tree CPU s | pipelined s | pipelined CPU s | pipelined / tree | twin s (two trees) | twin CPU s | twin / tree | twin CPU / two trees' CPU |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for size in $SIZES; do
  (( $(count "$size") <= 10000000 )) || continue
  log "threads: $size"
  build_runs "$RUNS" -n "$size" -s "$SEED" -m tree
  tree=$MED_WALL tree_cpu=$MED_CPU
  build_runs "$RUNS" -n "$size" -s "$SEED" -m pipelined
  pipe=$MED_WALL pipe_cpu=$MED_CPU
  build_runs 1 -n "$size" -s "$SEED" -m twin
  awk -v size="$size" -v tree="$tree" -v tcpu="$tree_cpu" -v pipe="$pipe" -v pcpu="$pipe_cpu" \
      -v twin="$MED_WALL" -v wcpu="$MED_CPU" 'BEGIN {
    printf "| %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |\n",
      size, tree, tcpu, pipe, pcpu, pipe / tree, twin, wcpu, twin / tree, wcpu / (2 * tcpu)
  }'
done

# ---- Where the build's time goes ----

if [[ -n $PROFILE_BUILD ]] && command -v perf > /dev/null; then
  PROFILED=$PROFILE_BUILD/bench/strata-bench-zoom
  size=
  for s in $SIZES; do
    if (( $(count "$s") <= 10000000 )); then size=$s; fi
  done
  log "perf: $size"
  perf record -q --call-graph dwarf,32768 -F 49 -o "$TMP/perf.data" "$PROFILED" build -n "$size" -s "$SEED" > /dev/null 2>&1
  perf report -i "$TMP/perf.data" --children --stdio -g none --percent-limit 0.1 2> /dev/null > "$TMP/perf.txt"
  share () {
    # the largest "children" share of a symbol (an inlined one appears more than once)
    awk -v sym="$1" '$1 ~ /%$/ && $0 ~ ("\\] " sym "( \\(inlined\\))?[ ]*$") { v = $1 + 0; if (v > best) best = v } END { printf "%.1f%%", best }' "$TMP/perf.txt"
  }
  echo
  echo "### Where the build's time goes (perf, mixed $size, call graphs; shares of all samples, children included)"
  echo
  echo "| part | function | share |"
  echo "|---|---|---|"
  echo "| generating the stream | strata_test_stream_next | $(share strata_test_stream_next) |"
  echo "| taking activities in: raw store and the pending sort | take_incoming | $(share take_incoming) |"
  echo "| of which the raw store | strata_raw_store_add | $(share strata_raw_store_add) |"
  echo "| the buffer former's starts | collect_starts | $(share collect_starts) |"
  echo "| delivering buffers to the levels | deliver | $(share deliver) |"
  echo "| per-level aggregation, all of it | level_consume | $(share level_consume) |"
  echo "| of which offering pieces to lanes | level_offer | $(share level_offer) |"
  echo "| of which the triviality merge | strata_aggregate_run_offer | $(share strata_aggregate_run_offer) |"
  echo "| of which closing chunks (copies into the stored chunk) | level_finish_chunk | $(share level_finish_chunk) |"
  echo "| first chunks at the end, from the raw store | compute_first_chunk | $(share compute_first_chunk) |"
  echo "| memcpy, anywhere (self) | __memmove_avx512_unaligned_erms | $(share __memmove_avx512_unaligned_erms) |"
  echo "| page faults, anywhere | asm_exc_page_fault | $(share asm_exc_page_fault) |"
fi

# ---- Queries ----

echo
echo "### Query latency"
echo
echo "Random viewports of 1920 pixels at each level's scale (width = ns/pixel x 1920) at a random place in the trace, over a random block of contiguous channels or all of them. The same viewports go to the zoom tree (the display request, strata_zoom_tree_query_spans, which reads pre-calculated items in place) and to the Nanoscope baseline. \"p99 CPU\" is the thread's CPU time for the same queries: a wall-clock p99 far above it is time other processes took. The zoom tree returns every activity, aggregated below one pixel; Nanoscope returns only the activities longer than one pixel (and no instants), so it returns fewer items and shows less."

query_runs=()
for size in $SIZES; do
  t=${T_FOR["mixed $size"]:-0}
  query_runs+=("mixed $size $t 60,all")
done
# Like-for-like ratios when a size had to use BIG_T.
for size in $SIZES; do
  if [[ ${T_FOR["mixed $size"]:-0} != 0 ]]; then
    for small in $SIZES; do
      [[ ${T_FOR["mixed $small"]:-0} == 0 ]] && query_runs+=("mixed $small $BIG_T 60")
    done
    break
  fi
done
for kind in $EXTRA_KINDS; do
  [[ $kind == many-threads ]] && query_runs+=("many-threads $(set -- $SIZES; echo "$1") 0 60,all")
done

for run in "${query_runs[@]}"; do
  read -r kind size t visible <<< "$run"
  log "query: $kind $size T=$t ($visible)"
  args=(query -k "$kind" -n "$size" -s "$SEED" -q "$QUERIES" -c "$visible")
  [[ $t != 0 ]] && args+=(-t "$t")
  "$BENCH" "${args[@]}" > "$TMP/query.out"
  grep -v -e '^RESULT' -e '^LEVEL' "$TMP/query.out"
  # Sortable: kind, T, channels, size.
  grep '^LEVEL' "$TMP/query.out" >> "$TMP/levels" || true
  grep '^RESULT' "$TMP/query.out" | while read -r line; do
    echo "$(kv "$line" kind) $(kv "$line" threshold) $(kv "$line" visible) $(kv "$line" n) $line"
  done >> "$TMP/results"
done

echo
echo "### Query summary"
echo
echo "Medians and p99 over all levels' queries together. \"vs smallest\" is the median against the smallest size's with the same kind, T and channels."
echo
echo "| kind | activities | T | channels | levels | zoom median µs | zoom p99 µs | zoom p99 CPU µs | zoom items | Nanoscope median µs | Nanoscope p99 µs | Nanoscope items | zoom / Nanoscope | zoom median vs smallest | tree MiB | Nanoscope lists MiB |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
declare -A BASE
while read -r line; do
  key="$(kv "$line" kind) $(kv "$line" threshold) $(kv "$line" visible)"
  zm=$(kv "$line" zoom_median_us)
  [[ -z ${BASE[$key]:-} ]] && BASE[$key]=$zm
  awk -v kind="$(kv "$line" kind)" -v n="$(kv "$line" n)" -v t="$(kv "$line" threshold)" -v vis="$(kv "$line" visible)" \
      -v levels="$(kv "$line" levels)" -v zm="$zm" -v zp="$(kv "$line" zoom_p99_us)" -v zc="$(kv "$line" zoom_p99_cpu_us)" \
      -v zi="$(kv "$line" zoom_items)" -v nm="$(kv "$line" nano_median_us)" -v np="$(kv "$line" nano_p99_us)" \
      -v ni="$(kv "$line" nano_items)" -v base="${BASE[$key]}" -v tree="$(kv "$line" tree_bytes)" \
      -v nl="$(kv "$line" nano_list_bytes)" 'BEGIN {
    size = n >= 1e6 ? sprintf("%gM", n / 1e6) : sprintf("%gk", n / 1e3)
    ratio = nm > 0 ? zm / nm : 0
    printf "| %s | %s | %d | %d | %d | %.1f | %.1f | %.1f | %.0f | %.1f | %.1f | %.0f | %.1fx | %.2f | %.0f | %.0f |\n",
      kind, size, t, vis, levels, zm, zp, zc, zi, nm, np, ni, ratio, zm / base, tree / 1048576, nl / 1048576
  }'
done < <(sort -k1,1 -k2,2n -k3,3n -k4,4n "$TMP/results" | cut -d' ' -f5-)

echo
echo "### Query latency at equal ns/pixel across sizes"
echo
echo "The same scale is the same amount of data per viewport in these stationary streams, so this is how a query's cost grows with the trace. Each cell: zoom-tree median µs / Nanoscope median µs, and the share of the zoom tree's chunks that were pre-calculated."
awk '
  function val(line, key,   m) { return match(line, "(^| )" key "=[^ ]*") ? substr(line, RSTART + (RSTART > 1) + length(key) + 1, RLENGTH - (RSTART > 1) - length(key) - 1) : "" }
  {
    group = val($0, "kind") " T = " val($0, "threshold") ", " val($0, "visible") " channels"
    n = val($0, "n") + 0; px = val($0, "pixel_ns") + 0
    if (!(group in seen)) { seen[group] = 1; groups[++ng] = group }
    if (!((group, n) in has_n)) { has_n[group, n] = 1; sizes[group] = sizes[group] " " n }
    if (!((group, px) in has_px)) { has_px[group, px] = 1; pxs[group] = pxs[group] " " px }
    cell[group, n, px] = sprintf("%.1f / %.1f (%d%%)", val($0, "zoom_median_us"), val($0, "nano_median_us"), val($0, "precomputed"))
  }
  END {
    for (g = 1; g <= ng; g++) {
      group = groups[g]
      k = split(sizes[group], ns, " "); if (k < 2) continue
      m = split(pxs[group], ps, " ")
      # sizes ascending, pixels descending (simple sorts, a handful of elements)
      for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (ns[j] + 0 < ns[i] + 0) { t = ns[i]; ns[i] = ns[j]; ns[j] = t }
      for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (ps[j] + 0 > ps[i] + 0) { t = ps[i]; ps[i] = ps[j]; ps[j] = t }
      printf "\n%s\n\n| ns/pixel |", group
      for (i = 1; i <= k; i++) printf " %s |", (ns[i] >= 1e6 ? sprintf("%gM", ns[i] / 1e6) : sprintf("%gk", ns[i] / 1e3))
      printf " largest / smallest (zoom) |\n|---|"
      for (i = 0; i <= k; i++) printf "---|"
      printf "\n"
      for (j = 1; j <= m; j++) {
        printf "| %d |", ps[j]
        for (i = 1; i <= k; i++) printf " %s |", ((group, ns[i], ps[j]) in cell) ? cell[group, ns[i], ps[j]] : "–"
        a = cell[group, ns[1], ps[j]]; b = cell[group, ns[k], ps[j]]
        if (a != "" && b != "") printf " %.2f |\n", (b + 0) / (a + 0); else printf " – |\n"
      }
    }
  }' "$TMP/levels"

echo
echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
