#!/bin/sh
# Strata's main job: set up, build, describe a trace and draw it. With no
# argument it uses the sample recording bundled in data/. The timeline is
# written to strata-timeline.png in the current directory.
#   scripts/run.sh [TRACE]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
here=$(pwd)
trace=${1:-$top/data/sample-trace.dat}
case $trace in /*) ;; *) trace=$here/$trace ;; esac

sh "$top/scripts/install-deps.sh"
cd "$top"
[ -d _build ] || meson setup _build --buildtype=debugoptimized >/dev/null
ninja -C _build >/dev/null

cli=$top/_build/src/cli/strata-cli
"$cli" info "$trace"
echo
"$cli" stats "$trace"
echo
"$cli" tree "$trace"
echo
"$cli" render "$trace" --width 1600 --height 900 -o "$here/strata-timeline.png"

# With a display, the application opens the same trace.
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  echo
  echo "Opening $trace in the viewer"
  GSETTINGS_SCHEMA_DIR="$top/_build/data${GSETTINGS_SCHEMA_DIR:+:$GSETTINGS_SCHEMA_DIR}" \
    "$top/_build/ui/strata" "$trace"
fi
