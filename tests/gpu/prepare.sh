#!/usr/bin/env bash
# tests/gpu/prepare.sh [BUILD_DIR] - run here, before the device tool's call, so that
# tests/gpu/run.sh on the GPU machine (a bare H200 with CUDA 13 and no package
# registry) builds nothing when it need not:
#
#   .gpu-build/gpu_check      gpu_check from BUILD_DIR (default build: a CUDA
#                             build, nvcc 13, sm_90, Release; x86-64 only)
#   .gpu-build/lib/           the shared libraries it needs beyond libc, libm,
#                             libstdc++ and libgcc_s that .deps/debs does not
#                             hold (libgomp, liblzma, libz): used there only
#                             where the machine lacks them
#   .gpu-build/sources.sha256 the hash of the sources it was built from
#                             (run.sh --sources-hash); run.sh builds anew when
#                             the carried tree's hash differs
#   .gpu-build/info.txt       commit, compiler, build type
#   .deps/debs/               jansson, libxml2 with ICU, qhull and pkgconf
#                             (scripts/fetch-gpu-debs.sh, about 12 MB), for a
#                             build there and for the prebuilt gpu_check's
#                             libraries; skipped with a warning when the
#                             registry cannot be reached
#
# Both folders are ignored by git and carried by the call (docs/gpu-results.md).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$here"
build="${1:-build}"
[ "$(uname -m)" = x86_64 ] || { echo "prepare: the GPU machine is x86-64; this one is $(uname -m): build there" >&2; exit 1; }
cmake --build "$build" --target gpu_check --parallel
probe=$("$build/gpu_check" /dev/null probe || true) # exit 1 here: no device
grep -q "CUDA backend built: yes" <<< "$probe" ||
  { echo "prepare: $build is not a CUDA build (bash scripts/setup.sh builds one where nvcc is found)" >&2; exit 1; }

if ! ls .deps/debs/*.deb >/dev/null 2>&1; then
  bash scripts/fetch-gpu-debs.sh || echo "prepare: WARNING: no .deps/debs (registry not reached): a build on the GPU machine would fail; the prebuilt gpu_check does not need them"
fi

rm -rf .gpu-build .deps/root # .deps/root: unpacked by a local run of run.sh; run.sh unpacks it there
mkdir -p .gpu-build/lib
cp "$build/gpu_check" .gpu-build/gpu_check
# The libraries it needs beyond libc, libm, libstdc++ and libgcc_s, except
# those a .deb in .deps/debs holds (run.sh unpacks them there when missing):
# ICU alone is 33 MB unpacked, 9 MB as its .deb, and the call carries 64 MiB.
in_debs=$(for f in .deps/debs/*.deb; do [ -f "$f" ] && dpkg-deb -c "$f"; done | awk '{print $6}' | xargs -r -n1 basename | sort -u)
ldd .gpu-build/gpu_check | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | while read -r name path; do
  case "$name" in libc.so*|libm.so*|libstdc++.so*|libgcc_s.so*|ld-linux*|libpthread.so*|libdl.so*|librt.so*) ;;
    *) grep -qxF "$name" <<< "$in_debs" || cp -L "$path" ".gpu-build/lib/$name" ;;
  esac
done
bash tests/gpu/run.sh --sources-hash > .gpu-build/sources.sha256
{
  echo "commit $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet HEAD -- 2>/dev/null || echo ' (with uncommitted changes)')"
  echo "$(/usr/local/cuda/bin/nvcc --version | tail -1)"
  grep -E '^CMAKE_BUILD_TYPE:|^CMAKE_CUDA_ARCHITECTURES:' "$build/CMakeCache.txt" | sed 's/:[A-Z]*=/ /'
  echo "glibc needed: $(objdump -T .gpu-build/gpu_check | grep -o 'GLIBC_[0-9.]*' | sort -Vu | tail -1)"
} > .gpu-build/info.txt
.gpu-build/gpu_check /dev/null probe || true # no device here: it says so
echo "prepare: .gpu-build ($(du -sh .gpu-build | cut -f1)), .deps ($(du -sh .deps 2>/dev/null | cut -f1)); sources $(cat .gpu-build/sources.sha256)"
cat .gpu-build/info.txt
echo "prepare: now call the device tool: run with command 'bash tests/gpu/run.sh \$OUT', carry [\".gpu-build\", \".deps\"], timeout_s 540"
