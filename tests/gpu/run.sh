#!/usr/bin/env bash
# tests/gpu/run.sh [OUT_DIR] - the device check of the CUDA backend, in one call
# of the device tool (docs/gpu-results.md says exactly how to run it and
# records what it printed).
#
# Before the call, here: `bash tests/gpu/prepare.sh` builds gpu_check (x86-64,
# CUDA 13, sm_90) into .gpu-build/ with the libraries it needs and a hash of
# the sources it was built from, and fetches .deps/debs for a build there.
# On the GPU machine this script uses .gpu-build/gpu_check when the sources'
# hash matches and it runs; else it builds gpu_check (needs nvcc, CMake, Ninja;
# jansson and pkg-config from .deps/debs when missing), which eats most of the
# budget, and copies the binary to OUT_DIR so a second call can carry it.
#
# Steps, in this order, each in its own processes with its own time limit
# (at most what is left of the budget):
#   probe      the CUDA device seen; without one nothing else runs
#   headline   tower, 16,384 worlds, awake (sleep off) and all asleep
#   robots     cart-pole, walker and the imported humanoid (scenes/mjcf/
#              humanoid.xml) at 4,096 then 16,384 worlds, awake (sleep off):
#              world-steps/s and device bytes per world
#   smoke      tower 2 worlds, jenga 3 worlds: fresh, 1 step, 30 steps
#   parity     every scene of scenes/ and the imported humanoid (8 worlds,
#              120 steps; the robot scenes compare the joint arrays too),
#              tests/scenes/robot_trees.json (three trees on three lanes of a
#              world) and every acceptance case of
#              tests/scenes/sleep/ (8 worlds, 420 steps), one process per scene
#   refused    many_pyramids (too large for the solve block: TP_ERR_CAPACITY)
#   writes     the constraint and mover scenes (crane, servo door, rope
#              bridge, drone, turntable; 8 worlds) with per-world writes and
#              resets between steps, against the CPU (gpu_check writes)
#   overflow   heap20 with 24 contact points per world (overflow, worlds
#              collided whole), 4 worlds, 80 steps
#   pyramid3d  1 world, 5 steps (collided whole on one thread: slow)
#   bench      tower, jenga, pyramid at 1,024 then 4,096 worlds, awake and
#              all asleep (settling capped at 8 wall s)
#   lanes      tower awake at 16,384 worlds with 4, 8 and 32 solve lanes
#   robot_lanes  walker awake at 16,384 worlds with 4 and 16 solve lanes (its
#              default is 1: the link points' rows and contact colors spread)
#   memcheck, racecheck   compute-sanitizer on crane, rope bridge and turntable
#              (constraints and movers), tower and jenga, few worlds
#
# Environment: GPU_CHECK_BUDGET_S (default 420: seconds for the whole check,
# build included; the device tool's timeout_s 540 leaves 20 % to spare),
# GPU_CHECK_STEPS (a comma list: only those steps, e.g. for a rerun),
# GPU_CHECK_BIN (a gpu_check to use as it is), GPU_CHECK_HEAD_WORLDS,
# GPU_CHECK_ROBOT_WORLDS and GPU_CHECK_BENCH_WORLDS (world counts;
# tests/gpu/test_check.sh makes them small), GPU_CHECK_SCENES (the parity list
# instead of all scenes).
#
# Every result line is appended to OUT_DIR/results.md as soon as it exists;
# the whole output goes to OUT_DIR/log.txt; the last lines of results.md are
# the table of steps (limit, time taken, result). Exit status: 0 when every
# step passed, 1 otherwise.
#
#   tests/gpu/run.sh --sources-hash   prints the hash of the sources gpu_check
#                                     is built from (prepare.sh records it)
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$here"

sources_hash() {
  find CMakeLists.txt cmake include csrc kernels tests/gpu/gpu_check.c -type f -print0 | LC_ALL=C sort -z |
    xargs -0 sha256sum | sha256sum | cut -c1-16
}
if [ "${1:-}" = --sources-hash ]; then sources_hash; exit 0; fi

# ---- .deps/debs (scripts/fetch-gpu-debs.sh) unpacked into .deps/root, never into /:
# the libraries gpu_check needs beyond the toolchain's (jansson, libxml2 and its
# ICU, qhull) and pkg-config, for a build here and for a prebuilt gpu_check
# whose libraries the machine lacks. Plain .pc files: the packaged ones name
# -dev dependencies that are not carried.
unpack_deps() {
  ls .deps/debs/*.deb >/dev/null 2>&1 || return 1
  local root="$here/.deps/root" lib="$here/.deps/root/usr/lib/x86_64-linux-gnu" f m
  if [ ! -e "$root/.unpacked" ]; then
    echo "unpacking .deps/debs into .deps/root"
    mkdir -p "$root"
    for f in .deps/debs/*.deb; do
      if command -v dpkg >/dev/null; then dpkg -x "$f" "$root" || return 1; continue; fi
      m=$(ar t "$f" | grep '^data.tar') # no dpkg: the .deb's data archive by hand
      case "$m" in
        *.xz) ar p "$f" "$m" | tar -xJ -C "$root" ;;
        *.zst) ar p "$f" "$m" | tar --zstd -x -C "$root" ;;
        *) ar p "$f" "$m" | tar -xz -C "$root" ;;
      esac || return 1
    done
    [ -x "$root/usr/bin/pkgconf" ] && [ ! -e "$root/usr/bin/pkg-config" ] && ln -s pkgconf "$root/usr/bin/pkg-config"
    mkdir -p "$root/pc"
    printf 'Name: jansson\nDescription: unpacked from .deps\nVersion: 2.14\nCflags: -I%s/usr/include\nLibs: -L%s -ljansson\n' \
      "$root" "$lib" > "$root/pc/jansson.pc"
    printf 'Name: libXML\nDescription: unpacked from .deps\nVersion: 2.9.14\nCflags: -I%s/usr/include/libxml2\nLibs: -L%s -lxml2\n' \
      "$root" "$lib" > "$root/pc/libxml-2.0.pc"
    printf 'Name: qhull_r\nDescription: unpacked from .deps\nVersion: 8.0.2\nCflags: -I%s/usr/include\nLibs: -L%s -lqhull_r\n' \
      "$root" "$lib" > "$root/pc/qhull_r.pc"
    touch "$root/.unpacked"
  fi
  export PATH="$root/usr/bin:$PATH" LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export PKG_CONFIG_PATH="$root/pc" PKG_CONFIG_LIBDIR="$root/pc:/usr/lib/x86_64-linux-gnu/pkgconfig:/usr/share/pkgconfig"
}

# ---- the build of gpu_check on the GPU machine (run.sh --build OUT_DIR, a step of its own)
if [ "${1:-}" = --build ]; then
  out="$2"
  if ! pkg-config --exists jansson libxml-2.0 qhull_r 2>/dev/null; then unpack_deps || exit 1; fi
  if ! pkg-config --exists jansson libxml-2.0 qhull_r 2>/dev/null; then
    echo "no jansson, libxml2 or qhull and no .deps/debs: run bash tests/gpu/prepare.sh before the call"; exit 1
  fi
  export PATH="/usr/local/cuda/bin:$PATH"
  cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DTORPOR_TESTS=OFF \
        -DCMAKE_CUDA_ARCHITECTURES="${CMAKE_CUDA_ARCHITECTURES:-90}" > "$out/cmake.txt" 2>&1 ||
    { tail -20 "$out/cmake.txt"; exit 1; }
  cmake --build build-gpu --target gpu_check --parallel > "$out/build.txt" 2>&1 || { tail -30 "$out/build.txt"; exit 1; }
  cp build-gpu/gpu_check "$out/gpu_check" # carried as .gpu-build/gpu_check by a later call
  exit 0
fi

out="${1:-$here/out/gpu}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
results="$out/results.md"
exec > >(tee -a "$out/log.txt") 2>&1
budget=${GPU_CHECK_BUDGET_S:-420}
start=$(date +%s)
elapsed() { echo $(( $(date +%s) - start )); }
say() { echo "== $(date -u +%H:%M:%S) (+$(elapsed) s) $*"; }
note() { echo "$*" | tee -a "$results"; }
summary=()
fail=0

# ---- run one step: its name, its limit in seconds, the command; records a row
# of the step table. A step starts only with at least 5 s of budget left and
# gets at most what is left.
wanted() { [ -z "${GPU_CHECK_STEPS:-}" ] || [[ ",$GPU_CHECK_STEPS," == *",$1,"* ]]; }
step() {
  local name=$1 limit=$2; shift 2
  local left=$(( budget - $(elapsed) ))
  if [ $left -lt 5 ]; then
    summary+=("| $name | $limit | - | not run: the budget of $budget s is spent |"); fail=1; return 1
  fi
  [ $limit -gt $left ] && limit=$left
  say "$name (limit $limit s)"
  local t0; t0=$(date +%s)
  timeout --kill-after=5 "$limit" "$@"
  local rc=$? took=$(( $(date +%s) - t0 )) result
  case $rc in
    0) result="passed" ;;
    124|137) result="TIMEOUT after $limit s (rows printed before it are kept)" ;;
    3) result="DEVICE FAULT (exit 3: see the row before; the process stopped there)" ;;
    *) result="FAILED (exit $rc)" ;;
  esac
  [ $rc -eq 0 ] || fail=1
  summary+=("| $name | $limit | $took | $result |")
  return $rc
}
# A step made of several processes (parity: one per scene) shares one limit.
steps_of() { # name limit per_process_limit command... -- items...
  local name=$1 limit=$2 each=$3; shift 3
  local cmd=() item rc=0
  while [ "$1" != -- ]; do cmd+=("$1"); shift; done; shift
  local left=$(( budget - $(elapsed) ))
  if [ $left -lt 5 ]; then
    summary+=("| $name | $limit | - | not run: the budget of $budget s is spent |"); fail=1; return 1
  fi
  [ $limit -gt $left ] && limit=$left
  local t0; t0=$(date +%s)
  say "$name (limit $limit s, $each s per process)"
  for item in "$@"; do
    local rest=$(( limit - ($(date +%s) - t0) ))
    if [ $rest -lt 3 ]; then note "| $item | not run: the step's $limit s are spent |"; rc=1; continue; fi
    [ $each -gt $rest ] && each=$rest
    timeout --kill-after=5 "$each" "${cmd[@]}" "$item"
    local r=$?
    case $r in
      0) ;;
      124|137) note "| $item | TIMEOUT after $each s |"; rc=1 ;;
      *) rc=1 ;;
    esac
  done
  local took=$(( $(date +%s) - t0 ))
  [ $rc -eq 0 ] || fail=1
  summary+=("| $name | $limit | $took | $([ $rc -eq 0 ] && echo passed || echo "FAILED (see its rows)") |")
}
finish() {
  { echo; echo "## Steps"; echo; echo "| step | limit s | took s | result |"; echo "|---|---|---|---|"
    printf '%s\n' "${summary[@]}"; echo
    echo "check done in $(elapsed) s of a $budget s budget; exit $fail"; } | tee -a "$results"
  exit $fail
}

{ echo "# GPU check, $(date -u +%Y-%m-%dT%H:%MZ)"; echo
  echo "GPU: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -1)"
  echo "nvcc: $(PATH=/usr/local/cuda/bin:$PATH nvcc --version 2>&1 | tail -1)"
  echo "sources: $(sources_hash)"; [ -n "${TORPOR_GPU_CHECK_FAKE:-}" ] &&
    echo "FAKE DEVICE (TORPOR_GPU_CHECK_FAKE=$TORPOR_GPU_CHECK_FAKE): nothing here ran on a GPU"; echo; } >> "$results"

# ---- the gpu_check binary: as given, prebuilt (.gpu-build), or built here
runs_here() { # its libraries resolve (with those carried in .gpu-build/lib or unpacked from .deps) and it starts
  local d="$(dirname "$1")/lib"
  if ldd "$1" 2>/dev/null | grep -q "not found" && [ -d "$d" ]; then
    export LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  fi
  if ldd "$1" 2>/dev/null | grep -q "not found"; then unpack_deps >/dev/null; fi
  if ldd "$1" 2>/dev/null | grep "not found"; then return 1; fi
  "$1" /dev/null probe >/dev/null 2>&1
  [ $? -le 1 ] # probe exits 1 without a device: the binary itself ran
}
bin="${GPU_CHECK_BIN:-}"
pre="${GPU_CHECK_PREBUILT:-$here/.gpu-build}" # another folder only for tests/gpu/test_check.sh
if [ -n "$bin" ]; then
  note "gpu_check: $bin (GPU_CHECK_BIN)"
elif [ -x "$pre/gpu_check" ] && [ "$(cat "$pre/sources.sha256" 2>/dev/null)" = "$(sources_hash)" ] &&
     runs_here "$pre/gpu_check"; then
  bin="$pre/gpu_check"
  note "gpu_check: prebuilt, sources match ($(tr '\n' ' ' < "$pre/info.txt" 2>/dev/null))"
else
  why="none in $pre"
  [ -x "$pre/gpu_check" ] && why="the prebuilt one in $pre is stale (other sources) or does not run here"
  note "gpu_check: building it here ($why)"
  if step build 300 bash "$here/tests/gpu/run.sh" --build "$out" && runs_here build-gpu/gpu_check; then
    bin=build-gpu/gpu_check
  else
    note "gpu_check could not be built or does not run: nothing else run"; finish
  fi
fi
export PATH="/usr/local/cuda/bin:$PATH"

# ---- the steps
gc=("$bin" "$results")
if ! step probe 15 "${gc[@]}" probe; then note "no CUDA device: nothing else run"; finish; fi
head_worlds=${GPU_CHECK_HEAD_WORLDS:-16384}
bench_worlds=${GPU_CHECK_BENCH_WORLDS:-1024,4096}
robot_worlds=${GPU_CHECK_ROBOT_WORLDS:-4096,16384}
if wanted headline; then
  { echo; echo "## Headline: tower at $head_worlds worlds"; } >> "$results"
  step headline 75 "${gc[@]}" bench --worlds "$head_worlds" scenes/tower.json
fi
if wanted robots; then
  { echo; echo "## Robots: cart-pole, walker and the imported humanoid at $robot_worlds worlds"; } >> "$results"
  step robots 60 "${gc[@]}" bench --awake --worlds "$robot_worlds" scenes/cartpole.json scenes/walker.json \
    scenes/mjcf/humanoid.xml
fi
if wanted smoke; then
  { echo; echo "## Smoke"; } >> "$results"
  step smoke 30 "${gc[@]}" smoke
fi
scene_files=()
for s in scenes/*.json; do
  case "$(basename "$s" .json)" in many_pyramids|pyramid3d) continue ;; esac
  scene_files+=("$s")
done
if wanted parity; then
  { echo; echo "## Parity (CPU and CUDA, one process per scene)"; } >> "$results"
  if [ -n "${GPU_CHECK_SCENES:-}" ]; then read -r -a list <<< "$GPU_CHECK_SCENES"
  else list=("${scene_files[@]}" scenes/mjcf/humanoid.xml tests/scenes/robot_trees.json tests/scenes/sleep/*.json); fi
  steps_of parity 150 20 "${gc[@]}" parity --worlds 8 -- "${list[@]}"
fi
if wanted refused; then
  { echo; echo "## Refused by the CUDA backend at creation"; } >> "$results"
  step refused 20 "${gc[@]}" refused scenes/many_pyramids.json
fi
if wanted writes; then
  { echo; echo "## Constraints and movers: per-world writes and resets (CPU and CUDA)"; } >> "$results"
  step writes 30 "${gc[@]}" writes --worlds 8 scenes/crane.json scenes/servo_door.json scenes/rope_bridge.json \
    scenes/drone.json scenes/turntable.json
fi
if wanted overflow; then
  { echo; echo "## Contact overflow (24 points per world)"; } >> "$results"
  step overflow 20 "${gc[@]}" parity --worlds 4 --steps 80 --capacity 24 tests/scenes/heap20.json
fi
if wanted pyramid3d; then
  { echo; echo "## pyramid3d (collided whole on one thread per world)"; } >> "$results"
  step pyramid3d 30 "${gc[@]}" parity --worlds 1 --steps 5 scenes/pyramid3d.json
fi
if wanted bench; then
  { echo; echo "## Benchmarks (CUDA)"; } >> "$results"
  step bench 90 "${gc[@]}" bench --worlds "$bench_worlds" --settle-s 8 scenes/tower.json scenes/jenga.json scenes/pyramid.json
fi
if wanted lanes; then
  { echo; echo "## Solve lanes per world (TORPOR_CUDA_SOLVE_LANES; the tower's default is 16)"; } >> "$results"
  step lanes 40 "${gc[@]}" bench --awake --worlds "$head_worlds" --lanes 4,8,32 scenes/tower.json
fi
if wanted robot_lanes; then
  { echo; echo "## Robot solve lanes (walker at $head_worlds worlds; its default is 1 lane: no movers, one tree)"; } >> "$results"
  step robot_lanes 30 "${gc[@]}" bench --awake --worlds "$head_worlds" --lanes 4,16 scenes/walker.json
fi
san=""
for c in "$(command -v compute-sanitizer || true)" /usr/local/cuda/bin/compute-sanitizer \
         /usr/local/cuda/compute-sanitizer/compute-sanitizer /opt/nvidia/compute-sanitizer/compute-sanitizer; do
  [ -n "$c" ] && [ -x "$c" ] && { san="$c"; break; }
done
for tool in memcheck racecheck; do
  wanted $tool || continue
  { echo; echo "## compute-sanitizer $tool"; } >> "$results"
  if [ -z "$san" ]; then summary+=("| $tool | - | - | not run: compute-sanitizer is not installed |"); continue; fi
  worlds=4; [ $tool = racecheck ] && worlds=2
  # the constraint and mover scenes first (their rows in the solve's colors and lane 0's phases), then the stacks
  step $tool 90 "$san" --tool $tool --print-limit 50 --error-exitcode 4 "$bin" "$out/sanitizer_results.md" parity \
    --worlds $worlds --steps 10 scenes/crane.json scenes/rope_bridge.json scenes/turntable.json scenes/tower.json \
    scenes/jenga.json > "$out/$tool.txt" 2>&1
  note "compute-sanitizer $tool (crane, rope bridge, turntable, tower and jenga, $worlds worlds, 10 steps): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/$tool.txt" | tail -1)"
done
finish
