#!/usr/bin/env bash
# tests/gpu/run.sh [OUT_DIR] - the GPU checks of the CUDA backend, in one go (< 8 min).
#
# On a machine with an NVIDIA GPU, nvcc, CMake and Ninja. Packages the build needs
# (Criterion, jansson, pkg-config) come from .deps/debs (scripts/fetch-gpu-debs.sh)
# when they are not installed, unpacked into .deps/root. Steps:
#   1. configure and build (Release, CUDA arch 90 unless CMAKE_CUDA_ARCHITECTURES is set);
#   2. CPU-vs-CUDA parity: every scene in scenes/ (120 steps) and every acceptance-case
#      scene in tests/scenes/sleep/ (420 steps, their scripted events included) in 8
#      worlds on both backends; state_hash and world_hashes must match;
#   3. the Criterion suite with TORPOR_TEST_BACKEND=cuda (tests that build batches
#      through tests/helpers.h run on the GPU);
#   4. compute-sanitizer (memcheck) on a short tower run;
#   5. benchmarks: tower 16,384 worlds sleep off / sleep on (awake, then all asleep),
#      pyramid 4,096 worlds, many_pyramids 1 world; an RL loop (bench/bench_rl.c)
#      of 16,384 tower worlds with forces, state reads and device resets.
# Writes OUT_DIR/log.txt and OUT_DIR/results.md (default out/gpu).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="${1:-$here/out/gpu}"
mkdir -p "$out"
log="$out/log.txt"
results="$out/results.md"
: > "$log"
exec > >(tee -a "$log") 2>&1
cd "$here"
say() { echo "== $*"; }
fail=0

# ---- 0. packages from .deps when missing
if [ -d .deps/debs ] && ! pkg-config --exists criterion jansson 2>/dev/null; then
  say "unpacking .deps/debs into .deps/root"
  mkdir -p .deps/root
  for f in .deps/debs/*.deb; do dpkg -x "$f" .deps/root; done
  root="$here/.deps/root"
  lib="$root/usr/lib/x86_64-linux-gnu"
  export PATH="$root/usr/bin:$PATH"
  export LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  [ -x "$root/usr/bin/pkgconf" ] && [ ! -e "$root/usr/bin/pkg-config" ] && ln -s pkgconf "$root/usr/bin/pkg-config"
  # The packaged .pc files name their -dev dependencies (libgit2, libffi, ...);
  # linking needs only the libraries themselves, so write plain ones.
  mkdir -p "$root/pc"
  for p in criterion jansson; do
    printf 'Name: %s\nDescription: unpacked from .deps\nVersion: 0\nCflags: -I%s/usr/include\nLibs: -L%s -l%s\n' \
      "$p" "$root" "$lib" "$p" > "$root/pc/$p.pc"
  done
  export PKG_CONFIG_PATH="$root/pc"
  export PKG_CONFIG_LIBDIR="$root/pc:/usr/lib/x86_64-linux-gnu/pkgconfig:/usr/share/pkgconfig"
fi
export PATH="/usr/local/cuda/bin:$PATH"

# ---- 1. build
say "build"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CUDA_ARCHITECTURES="${CMAKE_CUDA_ARCHITECTURES:-90}" || exit 1
cmake --build build-gpu --parallel || exit 1
bin=build-gpu/torpor
$bin info

field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d[sys.argv[2]])" "$1" "$2"; }

# ---- 2. parity
say "parity CPU vs CUDA"
echo "| scene | worlds | steps | state_hash cpu | state_hash cuda | equal |" > "$out/parity.md"
echo "|---|---|---|---|---|---|" >> "$out/parity.md"
for scene in scenes/*.json tests/scenes/sleep/*.json; do  # the scene library and the acceptance cases
  name=$(basename "$scene" .json)
  worlds=8; steps=120
  case "$name" in many_pyramids) worlds=1; steps=3 ;; pyramid3d) worlds=1; steps=20 ;; esac
  case "$scene" in tests/*) steps=420 ;; esac  # 7 s: past every case's last event (3 s) and its sleep
  for be in cpu cuda; do
    timeout 120 $bin run "$scene" --worlds $worlds --steps $steps --backend $be --quiet --out "$out/p_${name}_$be" \
      || echo "run failed: $scene $be"
  done
  hc=$(field "$out/p_${name}_cpu/summary.json" state_hash 2>/dev/null || echo "-")
  hg=$(field "$out/p_${name}_cuda/summary.json" state_hash 2>/dev/null || echo "-")
  wc=$(field "$out/p_${name}_cpu/summary.json" world_hashes 2>/dev/null || echo "-")
  wg=$(field "$out/p_${name}_cuda/summary.json" world_hashes 2>/dev/null || echo "-")
  eq=no; [ "$hc" = "$hg" ] && [ "$wc" = "$wg" ] && [ "$hc" != "-" ] && eq=yes
  [ $eq = yes ] || fail=1
  echo "| $name | $worlds | $steps | $hc | $hg | $eq |" >> "$out/parity.md"
done
cat "$out/parity.md"

# ---- 3. Criterion suite on the CUDA backend
say "ctest with TORPOR_TEST_BACKEND=cuda"
TORPOR_TEST_BACKEND=cuda timeout 240 ctest --test-dir build-gpu --output-on-failure > "$out/ctest.txt" 2>&1
ctest_rc=$?
tail -5 "$out/ctest.txt"
[ $ctest_rc -eq 0 ] || fail=1

# ---- 4. compute-sanitizer
say "compute-sanitizer"
san=""
for c in "$(command -v compute-sanitizer || true)" /usr/local/cuda/bin/compute-sanitizer \
         /usr/local/cuda/compute-sanitizer/compute-sanitizer /opt/nvidia/compute-sanitizer/compute-sanitizer; do
  [ -n "$c" ] && [ -x "$c" ] && { san="$c"; break; }
done
if [ -z "$san" ]; then
  san_result="not run: compute-sanitizer is not installed on this machine"
  echo "$san_result" | tee "$out/sanitizer.txt"
else
  timeout 120 "$san" --tool memcheck --error-exitcode 3 $bin run scenes/tower.json --worlds 64 --steps 30 \
    --backend cuda --quiet --out "$out/sanitizer" > "$out/sanitizer.txt" 2>&1
  san_rc=$?
  san_result="exit $san_rc"
  tail -3 "$out/sanitizer.txt"
  [ $san_rc -eq 0 ] || fail=1
fi

# ---- 5. benchmarks
say "benchmarks"
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
d = json.load(open("scenes/tower.json")); d["sleep"] = dict(d.get("sleep", {}), enabled=False)
json.dump(d, open(out + "/tower_nosleep.json", "w"))
PY
bench() { # label scene worlds steps
  timeout 150 $bin run "$2" --worlds "$3" --steps "$4" --backend cuda --quiet --out "$out/b_$1" \
    && echo "| $1 | $3 | $4 | $(field "$out/b_$1/summary.json" world_steps_per_second) | $(field "$out/b_$1/summary.json" body_steps_per_second) | $(field "$out/b_$1/summary.json" device_memory_bytes_per_world) |" >> "$out/bench.md"
}
echo "| run | worlds | steps | world-steps/s | body-steps/s | device bytes per world |" > "$out/bench.md"
echo "|---|---|---|---|---|---|" >> "$out/bench.md"
bench tower_sleep_off "$out/tower_nosleep.json" 16384 300
bench tower_sleep_on_first_0.5s scenes/tower.json 16384 30
bench tower_sleep_on_after_3s scenes/tower.json 16384 300
[ -f scenes/pyramid.json ] && bench pyramid scenes/pyramid.json 4096 120
[ -f scenes/many_pyramids.json ] && bench many_pyramids scenes/many_pyramids.json 1 10
cat "$out/bench.md"
say "RL loop (bench_rl: forces on a quarter of the worlds, state read and 64 resets every step)"
timeout 120 build-gpu/bench_rl scenes/tower.json 16384 100 cuda 4 64 > "$out/bench_rl.txt" 2>&1 \
  || echo "bench_rl failed (exit $?)" >> "$out/bench_rl.txt"
cat "$out/bench_rl.txt"

{
  echo "# GPU check $(date -u +%Y-%m-%dT%H:%MZ)"
  echo; echo "GPU: $(cat "$out/gpu.txt")"; echo
  echo "## Parity"; cat "$out/parity.md"; echo
  echo "## Criterion on CUDA: exit $ctest_rc"; tail -3 "$out/ctest.txt"; echo
  echo "## compute-sanitizer (memcheck, tower, 64 worlds, 30 steps): $san_result"; echo
  echo "## Benchmarks"; cat "$out/bench.md"
  echo; echo "## RL loop"; echo '```'; cat "$out/bench_rl.txt"; echo '```'
} > "$results"
say "results in $results (fail=$fail)"
exit $fail
