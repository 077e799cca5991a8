#!/usr/bin/env bash
# setup.sh - install what is missing (Debian 12, as root or with sudo) and build torpor.
#
# Idempotent: packages already present are not reinstalled, and an existing
# build directory is reused. The CUDA toolkit is optional: when nvcc is found
# (PATH or /usr/local/cuda/bin) the CUDA backend is compiled and linked too.
#
#   bash scripts/setup.sh [BUILD_DIR] [BUILD_TYPE]     (defaults: build Release)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${1:-$here/build}"
build_type="${2:-Release}"
shift $(( $# > 2 ? 2 : $# )) || true

packages=(build-essential cmake ninja-build pkg-config libcriterion-dev libjansson-dev libxml2-dev libqhull-dev libcairo2-dev
          python3 python3-numpy python3-cffi python3-pytest python3-setuptools python3-pip
          openmpi-bin libopenmpi-dev python3-mpi4py)
# The 3D viewer page inlines three.js (libjs-three); --video pipes frames to ffmpeg;
# tests/test_view.py loads the page in headless chromium and probes videos with ffprobe.
packages+=(libjs-three ffmpeg chromium)
# clang (for the libFuzzer targets that scripts/test.sh runs when it is present)
# is a large install: only with TORPOR_INSTALL_CLANG=1.
if [ "${TORPOR_INSTALL_CLANG:-0}" = 1 ]; then packages+=(clang); fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# Python package (python/): Debian's python3 with NumPy, CFFI and pytest from
# the packages above; Gymnasium is not packaged in Debian 12, so it comes from
# PyPI into the system interpreter (its vector environment is tested).
if ! /usr/bin/python3 -c 'import gymnasium' 2>/dev/null; then
  echo "setup: installing gymnasium (PyPI) for /usr/bin/python3"
  /usr/bin/python3 -m pip install --quiet --break-system-packages 'gymnasium>=1.0,<2'
fi
# MuJoCo (PyPI) is the oracle of the MJCF import tests (python/tests/test_import.py).
if ! /usr/bin/python3 -c 'import mujoco' 2>/dev/null; then
  echo "setup: installing mujoco (PyPI) for /usr/bin/python3"
  /usr/bin/python3 -m pip install --quiet --break-system-packages 'mujoco>=3.2,<5'
fi
# Gymnasium's MuJoCo environments (the oracle of python/tests/test_mjcf_envs.py and the
# baseline of bench/bench_envs.py) import imageio.
if ! /usr/bin/python3 -c 'import imageio' 2>/dev/null; then
  echo "setup: installing imageio (PyPI) for /usr/bin/python3"
  /usr/bin/python3 -m pip install --quiet --break-system-packages 'imageio>=2.9,<3'
fi

cmake -S "$here" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE="$build_type" "$@" >/dev/null
cmake --build "$build_dir" --parallel
echo "setup: built $build_dir ($build_type)"
