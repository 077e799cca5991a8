#!/usr/bin/env bash
# drift.sh - how far the bodies of a resting scene move in 10 s with sleep off:
# the largest displacement of any body (mm), in world 0 and as the median and
# maximum over several randomized worlds. The stability figure of the peers
# table (../shared/peers, "max body displacement"), over more worlds.
#
#   bash scripts/drift.sh [TORPOR] [SCENE:WORLDS ...]
#
# Defaults: build/torpor, scenes/tower.json:16 scenes/pyramid.json:8
# scenes/pyramid3d.json:2 (about 2 minutes on one core). 600 steps of the
# scene's dt, threads 2 (the results do not depend on the thread count).
set -euo pipefail
cd "$(dirname "$0")/.."
torpor=${1:-build/torpor}
shift || true
runs=("$@")
[[ ${#runs[@]} -gt 0 ]] || runs=(scenes/tower.json:16 scenes/pyramid.json:8 scenes/pyramid3d.json:2)
[[ -x "$torpor" ]] || { echo "drift.sh: $torpor is not an executable torpor CLI" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for run in "${runs[@]}"; do
    scene=${run%%:*} worlds=${run#*:}
    [[ -f "$scene" ]] || { echo "drift.sh: no scene file $scene" >&2; exit 2; }
    out="$tmp/$(basename "$scene" .json)"
    mkdir -p "$out"
    "$torpor" run "$scene" --sleep off --worlds "$worlds" --threads 2 --steps 600 --every 600 \
        --record-bodies --quiet --out "$out" >/dev/null
    python3 - "$out/bodies.csv" "$scene" <<'PY'
import csv, math, statistics, sys
path, scene = sys.argv[1], sys.argv[2]
pos = {}  # world -> step -> body -> (x, y, z)
for r in csv.DictReader(open(path)):
    if r["state"] != "static":
        pos.setdefault(int(r["world"]), {}).setdefault(int(r["step"]), {})[r["body"]] = \
            tuple(float(r[c]) for c in "xyz")
worst = []
for w in sorted(pos):
    a, b = pos[w][min(pos[w])], pos[w][max(pos[w])]
    worst.append(1000.0 * max(math.dist(a[i], b[i]) for i in a))
print(f"{scene}: {len(worst)} worlds, largest displacement after 10 s: world 0 {worst[0]:.2f} mm, "
      f"median {statistics.median(worst):.2f} mm, max {max(worst):.2f} mm")
PY
done
