#!/usr/bin/env bash
# fetch-gpu-debs.sh - download the Debian packages that tests/gpu/run.sh needs on a
# GPU machine that has nvcc, CMake and Ninja but cannot install packages.
#
# Run here (a Debian 12 machine that reaches the package registry; tests/gpu/prepare.sh
# runs it when .deps/debs is empty); it writes
# .deps/debs/*.deb, which .gitignore keeps out of git. Carry .deps to the
# GPU machine with the working tree; tests/gpu/run.sh unpacks them into
# .deps/root (dpkg -x, or ar and tar), never into /.
#
# What the device check builds is gpu_check alone (-DTORPOR_TESTS=OFF: no
# Criterion, whose runtime needs libboxfort, nanomsg, libgit2, mbedtls, libssh2,
# http-parser and libffi). `ldd build/gpu_check` lists libjansson.so.4,
# libxml2.so.2 (the MJCF/URDF import) with ICU's libicuuc/libicudata.so.72,
# liblzma.so.5 and libz.so.1, libqhull_r.so.8.0 (convex hulls), libgomp.so.1,
# libstdc++.so.6, libgcc_s.so.1, libm and libc (cudart is linked statically).
# libgomp, libstdc++ and libgcc_s come with gcc and g++, which nvcc needs anyway;
# libz and liblzma are on any base system (never carried as .debs: an older one
# on LD_LIBRARY_PATH would shadow the system's). So the build needs jansson,
# libxml2, ICU and qhull (libraries and headers) and pkg-config (pkgconf) for
# CMake to find them: about 12 MB of .debs, 9 MB of it ICU. tests/gpu/run.sh
# unpacks them into .deps/root with .pc files of its own.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mkdir -p "$here/.deps/debs"
packages=(libjansson4 libjansson-dev libxml2 libxml2-dev libicu72 libqhull-r8.0 libqhull-dev pkgconf pkgconf-bin
          libpkgconf3)
cd "$here/.deps/debs"
apt-get download "${packages[@]}"
ls -1 "$here/.deps/debs"
du -sh "$here/.deps/debs"
