/* shared_library.c - the one source of libtorpor.so besides the static library.
 *
 * The shared library is the static library's objects linked whole
 * (--whole-archive), so nothing is compiled twice; CMake wants a source per target
 * and this file is it. It defines nothing the API does not already have. */
typedef int tp_shared_library_translation_unit;
