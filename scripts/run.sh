#!/bin/sh
# Strata's main job: set up, build, and show a trace. With no argument it
# uses the sample recording bundled in data/.
#   scripts/run.sh [TRACE]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

sh scripts/install-deps.sh
[ -d _build ] || meson setup _build --buildtype=debugoptimized >/dev/null
ninja -C _build >/dev/null

trace=${1:-data/sample-trace.dat}
_build/src/cli/strata-cli info "$trace"
echo
exec _build/src/cli/strata-cli stats "$trace"
