#!/bin/bash
# /work/notes/perfmeas.sh for two builds: strata-cli index of A (main) and
# B (this branch), alternated with perf sched timehist -s, 3 rounds, on the
# two perf.data files; CPU (user + sys), peak RSS, wall. Then checks that
# A and B write byte-identical indexes and print the same stats.
A=${A:-/work/wt/perfpass/_relA/src/cli/strata-cli}
B=${B:-/work/wt/perfpass/_rel/src/cli/strata-cli}
OUT=${OUT:-/tmp/pp/ab.txt}
T=${T:-/tmp/pp/ab}
: > $OUT
for r in 1 2 3; do
  for f in /work/traces/perf/pipe-z.data /work/traces/perf/sched-all.data; do
    b=$(basename $f .data)
    for side in A B; do
      cli=$A; [ $side = B ] && cli=$B
      rm -rf $T/$side-$b; mkdir -p $T/$side-$b
      /usr/bin/time -f "$b $side %U %S %M %e" -a -o $OUT env STRATA_INDEX_DIR=$T/$side-$b $cli index -f $f >/dev/null 2>/dev/null
    done
    /usr/bin/time -f "$b timehist %U %S %M %e" -a -o $OUT perf sched timehist -s -i $f >/dev/null 2>/dev/null
  done
  echo "load $(cut -d' ' -f1-3 /proc/loadavg)" >> $OUT
done
for f in /work/traces/perf/pipe-z.data /work/traces/perf/sched-all.data; do
  b=$(basename $f .data)
  cmp $T/A-$b/*.strata-index $T/B-$b/*.strata-index && echo "$b index identical" >> $OUT
  STRATA_INDEX_DIR=$T/A-$b $A stats $f > $T/A-$b.stats 2>/dev/null
  STRATA_INDEX_DIR=$T/B-$b $B stats $f > $T/B-$b.stats 2>/dev/null
  STRATA_INDEX_DIR=$T/A-$b $A stats --json $f > $T/A-$b.json 2>/dev/null
  STRATA_INDEX_DIR=$T/B-$b $B stats --json $f > $T/B-$b.json 2>/dev/null
  cmp $T/A-$b.stats $T/B-$b.stats && cmp $T/A-$b.json $T/B-$b.json && echo "$b stats identical ($(wc -l < $T/A-$b.stats) lines)" >> $OUT
done
