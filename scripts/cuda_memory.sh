#!/bin/sh
# cuda_memory.sh - device bytes per world of the CUDA backend, by part, from the
# sizes the code uses (kernels/cuda/memory.cu, list_arrays: the same arrays,
# here summed on the CPU, since tp_batch_device_memory_bytes needs a device);
# CUB's temporary storage for the global sort is left out. For docs/cuda.md,
# "Memory". The probe is scripts/cuda_memory.c. Needs build/ (CPU or CUDA
# build); usage: scripts/cuda_memory.sh [scene.json ...]
set -e
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
libs=build/libtorpor.a # a CUDA build: its CUDA part and cudart too
[ -f build/libtorpor_cuda.a ] && libs="$libs build/libtorpor_cuda.a -L/usr/local/cuda/lib64 -lcudart_static"
cc -O1 -std=c11 -Iinclude -Icsrc -Ikernels -Iscripts scripts/cuda_memory.c $libs -ljansson -lxml2 -lqhull_r -lm -fopenmp -lpthread -lstdc++ -ldl -lrt -o "$tmp/mem"
if [ $# -eq 0 ]; then set -- scenes/tower.json scenes/jenga.json scenes/pyramid.json scenes/cartpole.json scenes/walker.json; fi
"$tmp/mem" "$@"
