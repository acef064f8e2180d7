#!/bin/sh
# Installs what Strata needs to build, test and run on Debian bookworm.
# Runs apt-get as root (directly, or through sudo when not root); skips
# the install when every package is already there.
set -eu

PACKAGES="
  build-essential meson ninja-build pkg-config clang llvm libclang-rt-14-dev
  libglib2.0-dev libjson-glib-dev
  libtraceevent-dev libtracecmd-dev libtracefs-dev trace-cmd linux-perf
  libzstd-dev libelf-dev libdw-dev
  libxxhash-dev
  libcairo2-dev libpango1.0-dev fonts-dejavu-core
  libgtk-4-dev libadwaita-1-dev gettext desktop-file-utils appstream
  xvfb xauth xz-utils time
"

missing=""
for p in $PACKAGES; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done

[ -z "$missing" ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
  SUDO=""
elif command -v sudo >/dev/null 2>&1; then
  SUDO="sudo"
else
  echo "install-deps: need root to install:$missing" >&2
  exit 1
fi

echo "install-deps: installing:$missing"
$SUDO apt-get update -qq
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
