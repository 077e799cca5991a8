#!/usr/bin/env bash
# test-deps.sh - install the Python packages that only the test suite needs, from PyPI into
# Debian's interpreter: torch (torch.distributed with gloo in test_sharded.py, DLPack in
# test_interop.py), jax[cpu] (DLPack) and pybullet (its package data, pybullet_data,
# holds real robots, URDFs with STL/OBJ collision meshes, that test_import.py reads) and moviepy
# (Gymnasium's RecordVideo wrapper, test_render.py). torch's Linux wheel pulls its CUDA libraries
# too (about 3 GB); they are not used here. Skipped for a package that already imports.
set -euo pipefail
want=()
/usr/bin/python3 -c 'import torch' 2>/dev/null || want+=(torch)
/usr/bin/python3 -c 'import jax' 2>/dev/null || want+=('jax[cpu]')
/usr/bin/python3 -c 'import pybullet_data' 2>/dev/null || want+=('pybullet>=3.2,<4')
/usr/bin/python3 -c 'import moviepy' 2>/dev/null || want+=(moviepy)
if ((${#want[@]})); then
  echo "test-deps: installing ${want[*]} (PyPI) for /usr/bin/python3"
  /usr/bin/python3 -m pip install --quiet --break-system-packages --root-user-action=ignore "${want[@]}"
fi
