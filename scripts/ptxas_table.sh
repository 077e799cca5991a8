#!/usr/bin/env bash
# ptxas_table.sh - per-kernel registers, stack, spills, shared memory and
# theoretical occupancy on sm_90, from ptxas, for docs/cuda.md ("Figures
# without a GPU"). Needs nvcc, no GPU. Compiles kernels/cuda/stages.cu and
# cub_sort.cu once more with the build's flags plus -Xptxas -v into a
# temporary folder (a few minutes on two cores).
#
#   bash scripts/ptxas_table.sh [tower_solve_shared_bytes [tower_list_shared_bytes]]
#   PTXAS_LOGS=dir bash scripts/ptxas_table.sh   (reuse dir/stages.log, dir/cub_sort.log; with
#                                                 KEEP=1 a run leaves them in /tmp/ptxas_logs)
#
# Occupancy: resident warps per multiprocessor over 64, from the registers
# (allocated per warp in units of 256, 65,536 per SM), threads (2,048 per SM),
# blocks (32 per SM) and shared memory (228 KiB per SM, 1 KiB reserved per
# block). The launch sizes are the ones kernels/cuda/ uses; the solve's
# dynamic shared memory is the tower's plan (kernels/solve_group.h: 8 worlds
# of 7,056 bytes), or the first argument; the pair listing's the tower's
# (kernels/collide_pairs.h, tp_list_plan: 8 worlds of 608 bytes), or the second.
set -euo pipefail
cd "$(dirname "$0")/.."
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
SOLVE_SHARED=${1:-56448}
LIST_SHARED=${2:-4864}
out=${PTXAS_LOGS:-}   # a folder of earlier stages.log / cub_sort.log: parse those, compile nothing
if [ -z "$out" ]; then
    out=$(mktemp -d)
    if [ -n "${KEEP:-}" ]; then out=/tmp/ptxas_logs; mkdir -p "$out"; else trap 'rm -rf "$out"' EXIT; fi
fi
flags=(-O3 -DNDEBUG --generate-code=arch=compute_90,code=[compute_90,sm_90] --fmad=false -prec-div=true
       -prec-sqrt=true -std=c++17 -Iinclude -Ikernels -Ikernels/cuda -Xptxas -v)
for f in stages cub_sort; do
    [ -n "${PTXAS_LOGS:-}" ] && break
    nice "$NVCC" "${flags[@]}" -x cu -c "kernels/cuda/$f.cu" -o "$out/$f.o" 2>"$out/$f.log"
done
python3 - "$SOLVE_SHARED" "$LIST_SHARED" "$out"/stages.log "$out"/cub_sort.log <<'EOF'
import re, subprocess, sys
solve_shared, list_shared = int(sys.argv[1]), int(sys.argv[2])
text = "".join(open(f).read() for f in sys.argv[3:])
rows, name, stack, spill = [], None, 0, 0
for line in text.splitlines():
    m = re.search(r"Compiling entry function '(\S+)' for 'sm_90'", line)
    if m: name = m.group(1); continue
    m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
    if m and name: stack, spill = int(m.group(1)), int(m.group(2)) + int(m.group(3)); continue
    m = re.search(r"Used (\d+) registers.*?(?:(\d+) bytes smem)?", line)
    if m and name:
        smem = re.search(r"(\d+) bytes smem", line)
        rows.append((name, int(m.group(1)), stack, spill, int(smem.group(1)) if smem else 0))
        name, stack, spill = None, 0, 0
names = subprocess.run(["c++filt"], input="\n".join(r[0] for r in rows), capture_output=True,
                       text=True).stdout.split("\n")
STAGES = ["plan", "collide", "sort", "islands", "wake", "warm_start", "constraints", "solve", "articulations", "finish",
          "sleep"]
def launch(n):
    """threads per block, dynamic shared bytes, label"""
    m = re.match(r"void tp_world_stage_kernel<(\d+)>", n)
    if m: return 64, 0, "`tp_world_stage_kernel<%s>` (%s)" % (m.group(1), STAGES[int(m.group(1))])
    m = re.match(r"void tp_group_stage_kernel<(\d+)>", n)
    if m and STAGES[int(m.group(1))] == "solve":
        return 128, solve_shared, "`tp_group_stage_kernel<%s>` (solve; tower plan)" % m.group(1)
    if m: return 128, 0, "`tp_group_stage_kernel<%s>` (%s)" % (m.group(1), STAGES[int(m.group(1))])
    m = re.match(r"void tp_block_sort_kernel<(\d+), (\d+)>", n)
    if m: return int(m.group(1)), 0, "`tp_block_sort_kernel<%s, %s>` (sort)" % (m.group(1), m.group(2))
    if "tp_pairs_list_kernel" in n: return 128, list_shared, "`tp_pairs_list_kernel` (tower plan)"
    for k, t in (("tp_pairs_narrow_kernel", 128), ("tp_busy_list_kernel", 1024), ("tp_pairs_scan_kernel", 1024),
                 ("tp_sort_init_kernel", 256)):
        if k in n: return t, 0, "`%s`" % k
    for k in ("tp_wake_begin_kernel", "tp_wake_again_kernel", "tp_pairs_gather_kernel", "tp_pairs_whole_kernel",
              "tp_reset_kernel", "tp_sort_permute_kernel",
              "tp_sort_export_kernel"):
        if k in n: return 64, 0, "`%s`" % k
    return None
print("| kernel (stage) | threads/block | registers | stack bytes/thread | spill bytes | shared bytes/block | blocks/SM | theoretical occupancy | limited by |")
print("|---|---|---|---|---|---|---|---|---|")
for (mangled, regs, stack, spill, smem), n in zip(rows, names):
    l = launch(n)
    if not l: continue  # CUB's own kernels
    threads, dyn, label = l
    warps = (threads + 31) // 32
    per_warp = -(-regs * 32 // 256) * 256
    lim = {"registers": (65536 // per_warp) // warps, "threads": 2048 // threads, "32 blocks": 32,
           "shared memory": (233472 // (smem + dyn + 1024))}
    blocks = min(lim.values())
    by = ", ".join(k for k, v in lim.items() if v == blocks)
    print("| %s | %d | %d | %d | %d | %d | %d | %.1f%% | %s |" % (label, threads, regs, stack, spill, smem + dyn, blocks,
                                                                100.0 * blocks * warps / 64, by))
EOF
