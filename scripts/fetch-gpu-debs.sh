#!/usr/bin/env bash
# fetch-gpu-debs.sh - download the Debian packages that tests/gpu/run.sh needs on a
# GPU machine that has nvcc, CMake and Ninja but cannot install packages.
#
# Run here (a Debian 12 machine that reaches the package registry); it writes
# .deps/debs/*.deb, which .git/info/exclude keeps out of git. Carry .deps to the
# GPU machine with the working tree; tests/gpu/run.sh unpacks them into
# .deps/root with dpkg -x (never into /).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mkdir -p "$here/.deps/debs"
grep -qx '/.deps/' "$here/.git/info/exclude" 2>/dev/null || echo '/.deps/' >> "$here/.git/info/exclude"
# Criterion and what it links, jansson, and pkg-config (pkgconf) itself.
packages=(libcriterion3 libcriterion-dev libboxfort-dev libnanomsg5 libnanomsg-dev libgit2-1.5
          libhttp-parser2.9 libmbedcrypto7 libmbedtls14 libmbedx509-1 libssh2-1 libffi8
          libjansson4 libjansson-dev pkgconf pkgconf-bin libpkgconf3)
cd "$here/.deps/debs"
apt-get download "${packages[@]}"
ls -1 "$here/.deps/debs"
