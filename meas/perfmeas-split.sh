#!/bin/bash
# Where the CPU of a perf.data index build goes, against perf sched timehist -s:
# the reader alone (strata-bench-read), the reader + kernel model + statistics
# without the index (stats --no-index), the whole index build; rounds alternate
# the commands so the machine's load hits them alike. CPU = user + sys.
B=${B:-/work/wt/perfpass/_rel}
OUT=${OUT:-/tmp/pp/split.txt}
IDX=${IDX:-/tmp/pp/idx}
: > $OUT
for r in 1 2 3; do
  for f in /work/traces/perf/pipe-z.data /work/traces/perf/sched-all.data; do
    b=$(basename $f .data)
    /usr/bin/time -f "$b timehist %U %S %M %e" -a -o $OUT perf sched timehist -s -i $f >/dev/null 2>/dev/null
    /usr/bin/time -f "$b read %U %S %M %e" -a -o $OUT $B/bench/strata-bench-read $f >/dev/null 2>/dev/null
    /usr/bin/time -f "$b stats-no-index %U %S %M %e" -a -o $OUT $B/src/cli/strata-cli stats --no-index $f >/dev/null 2>/dev/null
    rm -rf $IDX; mkdir -p $IDX
    /usr/bin/time -f "$b index %U %S %M %e" -a -o $OUT env STRATA_INDEX_DIR=$IDX $B/src/cli/strata-cli index -f $f >/dev/null 2>/dev/null
  done
  echo "load $(cut -d' ' -f1-3 /proc/loadavg)" >> $OUT
done
