#!/usr/bin/env bash
# install_check.sh - the installed library works for a C user with one flag.
#
# Installs BUILD_DIR to a temporary prefix with `cmake --install`, then
#   1. builds the README's C example with `pkg-config --cflags --libs torpor`
#      and runs it (8 worlds instead of 4096, to stay short);
#   2. builds a CMake project that uses find_package(torpor) and runs it.
# Neither gets LD_LIBRARY_PATH: the prefix is outside the system's library
# paths, so they find libtorpor.so by the RPATH the install gives them.
# Run by ctest (install_check) from the source directory.
#   bash tests/install_check.sh BUILD_DIR
set -euo pipefail
build="$(cd "${1:?usage: install_check.sh BUILD_DIR}" && pwd)"
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
prefix="$tmp/prefix"

cmake --install "$build" --prefix "$prefix" >/dev/null
for f in include/torpor.h lib/pkgconfig/torpor.pc lib/cmake/torpor/torporConfig.cmake bin/torpor; do
  [ -e "$prefix/$f" ] || { echo "install_check: $f was not installed"; exit 1; }
done
ls "$prefix"/lib/libtorpor.so* >/dev/null || { echo "install_check: no libtorpor.so installed"; exit 1; }

# 1. pkg-config: the README's example, verbatim but for the world count.
awk '/^```c$/{on=1; next} /^```$/{if(on) exit} on' "$src/README.md" | sed 's/def.worlds = 4096;/def.worlds = 8;/' >"$tmp/example.c"
grep -q tp_batch_create "$tmp/example.c" || { echo "install_check: README has no C example"; exit 1; }
flags="$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs torpor)"
cc -std=c11 "$tmp/example.c" $flags -o "$tmp/example"
out="$(cd "$src" && env -u LD_LIBRARY_PATH "$tmp/example")"
echo "pkg-config example: $out"
case "$out" in "world 7: "*" bodies awake"*) ;; *) echo "install_check: unexpected output"; exit 1;; esac

# 2. CMake: find_package(torpor) and the imported target torpor::torpor.
mkdir -p "$tmp/consumer"
cat >"$tmp/consumer/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.24)
project(consumer LANGUAGES C)
find_package(torpor 0.1 CONFIG REQUIRED)
add_executable(consumer main.c)
target_link_libraries(consumer PRIVATE torpor::torpor)
CM
cat >"$tmp/consumer/main.c" <<'C'
#include <stdio.h>
#include <torpor.h>
int main(void)
{
    tp_model_def md = tp_default_model_def();
    tp_builder *bd;
    tp_model *m;
    tp_batch *b;
    tp_body_def cube = tp_default_body_def();
    cube.pos[2] = 1.0f;
    if (tp_builder_create(&md, &bd) || tp_builder_add_body(bd, &cube, NULL) || tp_builder_finish(bd, &m)) {
        puts(tp_last_error());
        return 1;
    }
    tp_builder_destroy(bd);
    if (tp_batch_create(m, NULL, &b) || tp_batch_step(b, 30)) { puts(tp_last_error()); return 1; }
    tp_state_view s;
    tp_batch_state(b, &s);
    printf("%s: z after 0.5 s of free fall = %.3f m\n", TP_VERSION_STRING, (double)s.pos[2]);
    int ok = s.pos[2] < 1.0f;
    tp_batch_destroy(b);
    tp_model_destroy(m);
    return ok ? 0 : 1;
}
C
cmake -S "$tmp/consumer" -B "$tmp/consumer/build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$tmp/consumer/build" >/dev/null
echo "find_package consumer: $(env -u LD_LIBRARY_PATH "$tmp/consumer/build/consumer")"
echo "install_check: passed"
