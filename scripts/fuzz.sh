#!/usr/bin/env bash
# fuzz.sh - build the libFuzzer targets of tests/fuzz/ with clang and run each
# for SECONDS (default 60) from a seed corpus of the scenes and traces in the
# tree. Needs clang with libFuzzer (Debian: the clang package); without it,
# says so and exits 0. Crashes and their inputs go to build-fuzz/crash-*.
#
#   bash scripts/fuzz.sh [SECONDS]          e.g. bash scripts/fuzz.sh 3600 for an hour each
#
# Extra libFuzzer flags may be given in TORPOR_FUZZ_FLAGS (e.g. "-jobs=4 -workers=4").
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-60}"
out="$here/build-fuzz"
cc="${TORPOR_FUZZ_CC:-clang}"
if ! command -v "$cc" >/dev/null 2>&1; then
  echo "fuzz: $cc not found; fuzzing skipped (apt-get install clang to enable it)"
  exit 0
fi
probe="$(mktemp -d)"
echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }' > "$probe/p.c"
if ! "$cc" -fsanitize=fuzzer "$probe/p.c" -o "$probe/p" 2>/dev/null; then
  rm -rf "$probe"
  echo "fuzz: $cc has no libFuzzer; fuzzing skipped"
  exit 0
fi
rm -rf "$probe"
mkdir -p "$out"
flags=(-g -O1 -std=c11 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
       -ffp-contract=off -I"$here/include" -I"$here/csrc" -I"$here/kernels" -I"$here/kernels/cuda" -I"$here/csrc/cli")
deps="$(pkg-config --cflags --libs jansson libxml-2.0 qhull_r)" # the scene loader reads MJCF/URDF (libxml2) and builds hulls (qhull)
# The library's sources; the AVX2 sweeps need -mavx2 (never FMA), as CMakeLists.txt
# gives that file alone, so they are compiled apart and linked as an object.
lib=()
for f in "$here"/csrc/*.c; do
  case "$f" in */solver_simd_avx2.c) ;; *) lib+=("$f") ;; esac
done
"$cc" "${flags[@]}" -mavx2 -mno-fma -c "$here/csrc/solver_simd_avx2.c" -o "$out/solver_simd_avx2.o"
lib+=("$out/solver_simd_avx2.o")
# The loader with the whole library beside it (the builder it fills is model.c,
# the joints' checks articulation code).
"$cc" "${flags[@]}" -fopenmp "$here/tests/fuzz/fuzz_scene.c" "${lib[@]}" $deps -lm -o "$out/fuzz_scene"
# The trace reader with the whole library beside it (whatever of it trace.c calls).
"$cc" "${flags[@]}" -fopenmp "$here/tests/fuzz/fuzz_trace.c" "$here/csrc/cli/trace.c" "${lib[@]}" \
  $deps -lm -o "$out/fuzz_trace"

run() { # target, seed directories...
  local target="$1"; shift
  local corpus="$out/corpus_$target"
  mkdir -p "$corpus"
  for d in "$@"; do find "$d" -type f \( -name '*.json' -o -name '*.trace' \) -exec cp -n {} "$corpus/" \; ; done
  echo "fuzz: $target for ${seconds} s ($(ls "$corpus" | wc -l) inputs in the corpus)"
  (cd "$out" && ASAN_OPTIONS=detect_leaks=1 "./$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
     -print_final_stats=1 ${TORPOR_FUZZ_FLAGS:-} "$corpus" 2>"$out/$target.log") || {
    tail -40 "$out/$target.log"; echo "fuzz: $target FAILED (log: $out/$target.log)"; return 1; }
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$out/$target.log" | sed "s/^/fuzz: $target /"
}
run fuzz_scene "$here/scenes" "$here/tests/scenes"
run fuzz_trace "$here/tests/traces"
echo "fuzz: no crash, leak or undefined behaviour found"
