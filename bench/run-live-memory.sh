#!/bin/sh
# run-live-memory.sh — the application's memory while it follows a long
# recording: `strata-cli record` runs while `perf bench sched messaging`
# runs again and again, and the application (under its own Xvfb) follows
# the file from its first second. Every STEP seconds it prints the
# application's resident memory (VmRSS, and its anonymous and file-backed
# parts), VmHWM, its CPU time so far, and the file's size; at the end the
# resident memory at the end against at 60 s. The whole run holds
# /tmp/strata-record.lock.
#
# Usage: sudo bench/run-live-memory.sh [BUILD_DIR]   (default: _build)
# Environment: DURATION (600 s), STEP (30 s), MESSAGING ("-g 2 -l 200"),
# APP_LOG (a file to keep the application's messages in: with
# STRATA_DEBUG_MEMORY=1, what its pass holds every 30 s)
set -eu

BUILD=$(cd "${1:-_build}" && pwd)
DURATION=${DURATION:-600}
STEP=${STEP:-30}
MESSAGING=${MESSAGING:-"-g 2 -l 200"}
out=$(mktemp -d)

exec 9>/tmp/strata-record.lock
flock 9

display=$((100 + $$ % 100))
Xvfb ":$display" -screen 0 1920x1080x24 -nolisten tcp > /dev/null 2>&1 &
xvfb=$!
rec=""; load=""; app=""
cleanup ()
{
  for p in $app $load $rec $xvfb; do kill "$p" 2> /dev/null || true; done
  wait 2> /dev/null || true
  [ -n "${APP_LOG:-}" ] && cp "$out/app.log" "$APP_LOG"
  rm -rf "$out"
}
trap cleanup EXIT

"$BUILD/src/cli/strata-cli" record -q -o "$out/live.strata" 2> "$out/rec.log" &
rec=$!
while ! grep -q 'recording to' "$out/rec.log"; do sleep 0.1; done
( while :; do perf bench sched messaging $MESSAGING > /dev/null 2>&1; done ) &
load=$!
sleep 1
DISPLAY=":$display" GDK_BACKEND=x11 GSK_RENDERER=cairo GDK_DEBUG=gl-disable GTK_A11Y=none \
  NO_AT_BRIDGE=1 GSETTINGS_BACKEND=memory GSETTINGS_SCHEMA_DIR="$BUILD/data" \
  XDG_DATA_HOME="$out/data" XDG_CONFIG_HOME="$out/config" XDG_CACHE_HOME="$out/cache" \
  "$BUILD/ui/strata" "$out/live.strata" > "$out/app.log" 2>&1 &
app=$!
start=$(date +%s)

field () { awk -v k="$1:" '$1 == k { print $2 }' "/proc/$app/status"; }
printf '%6s %10s %10s %10s %10s %8s %10s %6s\n' s rss_kB anon_kB file_kB hwm_kB cpu_s file_MB load
rss60=""
while :; do
  sleep "$STEP"
  t=$(( $(date +%s) - start ))
  kill -0 "$app" 2> /dev/null || { echo "the application exited:"; cat "$out/app.log"; exit 1; }
  rss=$(field VmRSS)
  cpu=$(awk '{ printf "%.1f", ($14 + $15) / 100 }' "/proc/$app/stat")
  mb=$(stat -c %s "$out/live.strata" | awk '{ printf "%.1f", $1 / 1e6 }')
  printf '%6d %10s %10s %10s %10s %8s %10s %6s\n' "$t" "$rss" "$(field RssAnon)" "$(field RssFile)" \
    "$(field VmHWM)" "$cpu" "$mb" "$(cut -d' ' -f1 /proc/loadavg)"
  [ -z "$rss60" ] && [ "$t" -ge 60 ] && rss60=$rss
  [ "$t" -ge "$DURATION" ] && break
done
echo "resident at the end over at 60 s: $(echo "$rss $rss60" | awk '{ printf "%.2f", $1 / $2 }')"
