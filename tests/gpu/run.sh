#!/usr/bin/env bash
# tests/gpu/run.sh CALL [OUT_DIR] - the device check of the CUDA backend, in two
# calls of at most 5 minutes each (docs/gpu-results.md says how to run them and
# records what they printed).
#
#   call 1 (about 3-4 min): unpack .deps, configure and build gpu_check only (no
#     Criterion suite: the CPU suite runs in CI), then
#       smoke   tower 2 worlds and jenga 3 worlds: device reset, 1 step, 30
#               steps against the CPU, the counts too (printed as soon as the
#               build ends, within 2 minutes of it);
#       parity  every scene of scenes/ but many_pyramids (8 worlds, 120 steps;
#               pyramid3d 1 world, 20 steps) and every acceptance case of
#               tests/scenes/sleep/ (8 worlds, 420 steps), one process; and
#               heap20 with 24 contact points per world (overflow, worlds
#               collided whole);
#     and copies the gpu_check binary to OUT_DIR, so that call 2 can carry it
#     if the machine was given back in between.
#   call 2 (about 4-5 min), with the build carried: compute-sanitizer memcheck
#     and racecheck on a small batch (tower and jenga, 4 and 2 worlds: the
#     solve's groups within a warp and across warps), then the benchmark
#     table: tower, pyramid and jenga at 1,024, 4,096 and 16,384 worlds (every
#     scene at one count before the next count), awake (sleep off) and all
#     asleep, with device memory per world; then the tower awake at 16,384
#     worlds with 4, 8 and 32 solve lanes per world.
# Give each call the device tool's timeout_s 300; every step has its own
# timeout inside that, so a slow step costs only its own rows.
#
# Every result line is appended to OUT_DIR/results.md as soon as it exists
# (gpu_check writes each line itself), and everything printed goes to
# OUT_DIR/log.txt. many_pyramids (22,001 bodies) is left out of CUDA runs: the
# CUDA backend refuses worlds over 9,685 bodies (docs/cuda.md, "Large worlds").
#
# Needs nvcc, CMake and Ninja on the machine; jansson and pkg-config come from
# .deps/debs (bash scripts/fetch-gpu-debs.sh, run beforehand where Debian's
# package registry is reachable) when they are not installed. On the device
# tool: call 1 carries .deps, call 2 carries .deps and .gpu-build (the binary
# call 1 left in its OUT_DIR, copied into .gpu-build/ here).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
call="${1:-}"
out="${2:-$here/out/gpu}"
case "$call" in 1|2) ;; *) echo "usage: tests/gpu/run.sh 1|2 [OUT_DIR]" >&2; exit 2 ;; esac
mkdir -p "$out"
results="$out/results.md"
exec > >(tee -a "$out/log.txt") 2>&1
cd "$here"
say() { echo "== $(date -u +%H:%M:%S) $*"; }
start=$(date +%s)
elapsed() { echo $(( $(date +%s) - start )); }
fail=0

# ---- packages from .deps when missing: unpacked into .deps/root, never into /
unpack() { # a .deb into $2 (dpkg -x, or ar and tar where there is no dpkg)
  if command -v dpkg >/dev/null; then dpkg -x "$1" "$2"; return; fi
  local m; m=$(ar t "$1" | grep '^data.tar')
  case "$m" in
    *.xz) ar p "$1" "$m" | tar -xJ -C "$2" ;;
    *.zst) ar p "$1" "$m" | tar --zstd -x -C "$2" ;;
    *) ar p "$1" "$m" | tar -xz -C "$2" ;;
  esac
}
if [ -d .deps/debs ] && ! pkg-config --exists jansson 2>/dev/null; then
  say "unpacking .deps/debs into .deps/root"
  root="$here/.deps/root"
  mkdir -p "$root"
  for f in .deps/debs/*.deb; do unpack "$here/$f" "$root"; done
  lib="$root/usr/lib/x86_64-linux-gnu"
  export PATH="$root/usr/bin:$PATH"
  export LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  [ -x "$root/usr/bin/pkgconf" ] && [ ! -e "$root/usr/bin/pkg-config" ] && ln -s pkgconf "$root/usr/bin/pkg-config"
  mkdir -p "$root/pc" # plain .pc files: the packaged ones name -dev dependencies
  printf 'Name: jansson\nDescription: unpacked from .deps\nVersion: 2.14\nCflags: -I%s/usr/include\nLibs: -L%s -ljansson\n' \
    "$root" "$lib" > "$root/pc/jansson.pc"
  export PKG_CONFIG_PATH="$root/pc"
  export PKG_CONFIG_LIBDIR="$root/pc:/usr/lib/x86_64-linux-gnu/pkgconfig:/usr/share/pkgconfig"
fi
export PATH="/usr/local/cuda/bin:$PATH"

# ---- the gpu_check binary: built here (call 1), or as call 1 left it
bin=""
if [ "$call" = 1 ] || { [ ! -x build-gpu/gpu_check ] && [ ! -x .gpu-build/gpu_check ]; }; then
  say "build (gpu_check only)"
  {
    echo "# GPU check, call $call, $(date -u +%Y-%m-%dT%H:%MZ)"; echo
    echo "GPU: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -1)"
    echo "nvcc: $(nvcc --version 2>&1 | tail -1)"; echo
  } >> "$results"
  cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DTORPOR_TESTS=OFF \
        -DCMAKE_CUDA_ARCHITECTURES="${CMAKE_CUDA_ARCHITECTURES:-90}" > "$out/cmake.txt" 2>&1 \
    || { tail -20 "$out/cmake.txt"; echo "configure failed" >> "$results"; exit 1; }
  cmake --build build-gpu --target gpu_check --parallel > "$out/build.txt" 2>&1 \
    || { tail -30 "$out/build.txt"; echo "build failed" >> "$results"; exit 1; }
  echo "build: $(elapsed) s" >> "$results"
  bin=build-gpu/gpu_check
  cp "$bin" "$out/gpu_check" # for call 2 on a fresh machine (carried as .gpu-build/gpu_check)
elif [ -x build-gpu/gpu_check ]; then bin=build-gpu/gpu_check
else bin=.gpu-build/gpu_check
fi
say "using $bin ($(elapsed) s)"
ldd "$bin" | grep -i "not found" && { echo "missing libraries for $bin" >> "$results"; exit 1; }

if [ "$call" = 1 ]; then
  say "smoke"
  { echo; echo "## Smoke"; } >> "$results"
  timeout 45 "$bin" "$results" smoke || fail=1
  say "parity ($(elapsed) s)"
  { echo; echo "## Parity (CPU and CUDA in one process)"; } >> "$results"
  scenes=()
  for s in scenes/*.json; do
    case "$(basename "$s" .json)" in many_pyramids|pyramid3d) ;; *) scenes+=("$s") ;; esac
  done
  timeout 110 "$bin" "$results" parity --worlds 8 "${scenes[@]}" tests/scenes/sleep/*.json || fail=1
  timeout 30 "$bin" "$results" parity --worlds 1 --steps 20 scenes/pyramid3d.json || fail=1
  # 24 contact points and 16 pair slots for 20 falling boxes: overflow, and
  # worlds with more candidate pairs than slots collided whole
  timeout 15 "$bin" "$results" parity --worlds 4 --steps 80 --capacity 24 tests/scenes/heap20.json || fail=1
else
  say "compute-sanitizer"
  echo "# GPU check, call 2, $(date -u +%Y-%m-%dT%H:%MZ)" >> "$results"
  san=""
  for c in "$(command -v compute-sanitizer || true)" /usr/local/cuda/bin/compute-sanitizer \
           /usr/local/cuda/compute-sanitizer/compute-sanitizer /opt/nvidia/compute-sanitizer/compute-sanitizer; do
    [ -n "$c" ] && [ -x "$c" ] && { san="$c"; break; }
  done
  if [ -z "$san" ]; then
    echo "compute-sanitizer: not run (not installed on this machine)" >> "$results"
  else
    for tool in memcheck racecheck; do
      worlds=4; [ $tool = racecheck ] && worlds=2
      timeout 50 "$san" --tool $tool --print-limit 50 --error-exitcode 3 "$bin" "$out/sanitizer_results.md" parity \
        --worlds $worlds --steps 10 scenes/tower.json scenes/jenga.json > "$out/$tool.txt" 2>&1
      rc=$?
      [ $rc -eq 0 ] || fail=1
      echo "compute-sanitizer $tool (tower and jenga, $worlds worlds, 10 steps): exit $rc; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/$tool.txt" | tail -1)" >> "$results"
      tail -3 "$out/$tool.txt"
    done
  fi
  say "benchmarks ($(elapsed) s)"
  { echo; echo "## Benchmarks (CUDA)"; } >> "$results"
  timeout 130 "$bin" "$results" bench --worlds 1024,4096,16384 scenes/tower.json scenes/pyramid.json \
    scenes/jenga.json || fail=1
  # The solve's lanes per world (kernels/solve_group.h; default for the tower:
  # 16, from its 10 dynamic bodies): the tower awake at 16,384 worlds with
  # fewer and more lanes (same bits, other speed) to tune the default.
  for lanes in 4 8 32; do
    echo "solve lanes per world: $lanes (TORPOR_CUDA_SOLVE_LANES)" >> "$results"
    TORPOR_CUDA_SOLVE_LANES=$lanes timeout 12 "$bin" "$results" bench --awake --worlds 16384 scenes/tower.json || fail=1
  done
fi
say "call $call done in $(elapsed) s (fail=$fail); results in $results"
exit $fail
