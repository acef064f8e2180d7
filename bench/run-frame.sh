#!/bin/sh
# run-frame.sh — the frame benchmark: CPU time to build one timeline
# frame's render nodes (painter paint + GTK nodes) at 1920x1080 with 60
# visible rows, at ten zoom levels, on generated traces of each size,
# against a node per raw activity in view. Each run is a process of its
# own with a different seed; the summary is the median of the runs'
# all-level medians.
#
# Usage: bench/run-frame.sh [BUILD_DIR]   (default: _build)
# Environment: SIZES ("1M 10M 100M"), RUNS (3), BIG_RUNS (1, above 10M),
#              FRAMES (20 per level), BIG_EXTRA (more options for the bench
#              above 10M, e.g. "--fold-ab --item-stats": such a run is
#              long to build, so it says all it can at once), EXTRA (more
#              options for every run, e.g. "--split" or "--pan"), KEEP (a folder to
#              keep each run's output in)
set -eu

BUILD=${1:-_build}
SIZES=${SIZES:-"1M 10M 100M"}
RUNS=${RUNS:-3}
BIG_RUNS=${BIG_RUNS:-1}
FRAMES=${FRAMES:-20}
BIG_EXTRA=${BIG_EXTRA:-}
EXTRA=${EXTRA:-}
KEEP=${KEEP:-}
bench=$BUILD/bench/strata-bench-frame
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

for size in $SIZES; do
  runs=$RUNS
  extra=
  case $size in 1M|1m|10M|10m) ;; *) runs=$BIG_RUNS; extra=$BIG_EXTRA ;; esac
  for r in $(seq 1 "$runs"); do
    # shellcheck disable=SC2086 # the options are words
    "$bench" -n "$size" -f "$FRAMES" -s "$r" $extra $EXTRA > "$out/$size-$r.txt"
    if [ -n "$KEEP" ]; then mkdir -p "$KEEP" && cp "$out/$size-$r.txt" "$KEEP/"; fi
  done
  echo "### $size activities (run 1 of $runs)"
  echo
  cat "$out/$size-1.txt"
  echo
done

echo "### Summary: median over runs of each run's all-level median (ms)"
echo
echo "| activities | runs | frame | raw activities | pan frame (--pan) |"
echo "|---|---|---|---|---|"
for size in $SIZES; do
  tree=$(grep -h '^all levels: zoom tree' "$out/$size"-*.txt | sed 's/.*zoom tree median \([0-9.]*\) ms.*/\1/' | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  raw=$(grep -h '^all levels: zoom tree' "$out/$size"-*.txt | sed -n 's/.*raw median \([0-9.]*\) ms.*/\1/p' | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  pan=$(grep -h '^all levels: pan frame' "$out/$size"-*.txt | sed 's/.*pan frame median \([0-9.]*\) ms.*/\1/' | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  n=$(ls "$out/$size"-*.txt | wc -l)
  echo "| $size | $n | $tree | ${raw:-–} | ${pan:-–} |"
done

echo
echo "### By level: median over runs of each run's frame median / paint median (ms)"
echo
for size in $SIZES; do
  echo "| $size level | runs | frame | paint |"
  echo "|---|---|---|---|"
  for level in 0 1 2 3 4 5 6 7 8 9; do
    # The main table's rows: | level | span | tree level | items | on-demand | nodes | frame | paint | ...
    frame=$(for f in "$out/$size"-*.txt; do awk -F'|' -v l="$level" '$2 ~ /^ *[0-9]+ *$/ && $2 + 0 == l && $3 ~ /s *$/ {print $8 + 0; exit}' "$f"; done | sort -g | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]}')
    paint=$(for f in "$out/$size"-*.txt; do awk -F'|' -v l="$level" '$2 ~ /^ *[0-9]+ *$/ && $2 + 0 == l && $3 ~ /s *$/ {print $9 + 0; exit}' "$f"; done | sort -g | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]}')
    n=$(ls "$out/$size"-*.txt | wc -l)
    echo "| $level | $n | $frame | $paint |"
  done
  echo
done
