#!/usr/bin/env bash
# test.sh - run the Criterion suite (through ctest) on the Release build and the
# Python package's pytest suite against it, then build with AddressSanitizer +
# UndefinedBehaviorSanitizer and run the Criterion suite and the pytest suite
# again on that build. Then runs the
# libFuzzer targets for 60 s each when clang is present (scripts/fuzz.sh).
# Run scripts/setup.sh first (the README's test command does).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"

echo "== Release suite"
ctest --test-dir build --output-on-failure

echo "== Test-only Python packages (torch, jax: scripts/test-deps.sh)"
bash scripts/test-deps.sh

echo "== Python suite (pytest, python/tests, on build/libtorpor.so)"
# Debian's interpreter, where setup.sh installed NumPy, CFFI, pytest and Gymnasium.
# pytest exits non-zero on a failure and with 5 when it collected no test: both stop here.
TORPOR_LIBRARY="$here/build/libtorpor.so" TORPOR_HEADER="$here/include/torpor.h" PYTHONPATH="$here/python" \
  /usr/bin/python3 -m pytest -q -p no:cacheprovider "$here/python/tests"

echo "== Sanitizer suite (ASan + UBSan; CUDA left out to keep the build short)"
bash scripts/setup.sh "$here/build-sanitize" Sanitize -DTORPOR_CUDA=OFF
ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions="$here/scripts/lsan.supp" \
  UBSAN_OPTIONS=print_stacktrace=1 ctest --test-dir build-sanitize --output-on-failure

echo "== Python suite on the sanitizer build (build-sanitize/libtorpor.so under ASan + UBSan)"
# The interpreter is not built with ASan, so its runtime is loaded first
# (LD_PRELOAD) for the library's checks to work; leak checks stay with the C
# suite above (CPython keeps much of its memory to the end on purpose).
# --capture=sys leaves file descriptor 2 alone, so a sanitizer's report, which
# ends the process, reaches the terminal instead of pytest's capture file. The JAX test is left
# to the Release run: jaxlib throws C++ exceptions at start-up, and the preloaded ASan runtime
# cannot intercept them ("CHECK failed: asan_interceptors.cpp ... real___cxa_throw").
asan_runtime="$(gcc -print-file-name=libasan.so)"
LD_PRELOAD="$asan_runtime" ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 \
  TORPOR_LIBRARY="$here/build-sanitize/libtorpor.so" TORPOR_HEADER="$here/include/torpor.h" \
  TORPOR_CLI="$here/build-sanitize/torpor" PYTHONPATH="$here/python" \
  /usr/bin/python3 -m pytest -q -p no:cacheprovider --capture=sys "$here/python/tests" \
  -k "not test_jax_from_dlpack_reads_the_views"

# libFuzzer targets of tests/fuzz/ (the scene loader, the trace reader), each for
# TORPOR_FUZZ_SECONDS (default 60; 0 skips); skipped with a note without clang.
fuzz_seconds="${TORPOR_FUZZ_SECONDS:-60}"
if [ "$fuzz_seconds" != 0 ]; then
  echo "== Fuzzing (${fuzz_seconds} s per target)"
  bash scripts/fuzz.sh "$fuzz_seconds"
fi
