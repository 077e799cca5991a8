#!/usr/bin/env bash
# test.sh - run the Criterion suite (through ctest) on the Release build, then
# build with AddressSanitizer + UndefinedBehaviorSanitizer and run it again.
# Run scripts/setup.sh first (the README's test command does).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"

echo "== Release suite"
ctest --test-dir build --output-on-failure

echo "== Sanitizer suite (ASan + UBSan; CUDA left out to keep the build short)"
bash scripts/setup.sh "$here/build-sanitize" Sanitize -DTORPOR_CUDA=OFF
ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions="$here/scripts/lsan.supp" \
  UBSAN_OPTIONS=print_stacktrace=1 ctest --test-dir build-sanitize --output-on-failure
