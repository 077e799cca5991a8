#!/usr/bin/env bash
# sleep_policies.sh - the measurements of docs/sleep-policies.md: five scenes
# under the island policy, the assembly policy with its default thresholds and
# the assembly policy with thresholds scaled to the source's gravity (x 0.05).
# 4 worlds, 6 s, 1 thread each; prints a markdown table; OUT/<scene>-<policy>/
# holds each run's outputs (awake.png, awake.csv, ...). Takes about a minute.
# usage: scripts/sleep_policies.sh [OUT]   (default /tmp/sleep-policies)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
T="${TORPOR:-$here/build/torpor}"
O="${1:-/tmp/sleep-policies}"
mkdir -p "$O"
scaled='"assembly": {"linear_velocity": 0.0165, "rotational_velocity": 0.021, "linear_acceleration": 0.012,
  "rotational_acceleration": 0.012, "neighbour_linear_velocity": 0.024, "neighbour_rotational_velocity": 0.0295,
  "wake_linear_acceleration": 0.845, "wake_rotational_acceleration": 0.845, "collision_wake_speed": 0.05}'
scaled="$(echo "$scaled" | tr -d '\n')"
printf "| scene | policy | dynamic bodies | all asleep at (s, worlds 0-3) | mean awake | mean checking | wake-ups | ms/step |\n"
printf "|---|---|---|---|---|---|---|---|\n"
for s in tower pyramid jenga dominoes heap; do
  for pol in island assembly scaled; do
    f="$O/$s-$pol.json"
    case $pol in
      island) cp "$here/scenes/$s.json" "$f" ;;
      assembly) sed 's/"policy": "island"/"policy": "assembly"/' "$here/scenes/$s.json" > "$f" ;;
      scaled) sed "s/\"policy\": \"island\"/\"policy\": \"assembly\", $scaled/" "$here/scenes/$s.json" > "$f" ;;
    esac
    "$T" run "$f" --worlds 4 --seconds 6 --threads 1 --out "$O/$s-$pol" --quiet > /dev/null
    steps=360
    wall=$(python3 -c "import json; print(json.load(open('$O/$s-$pol/summary.json'))['wall_seconds'] * 1000 / $steps)")
    # awake.csv: step,time,world,awake,checking,sleeping. Under the island
    # policy checking bodies are inside `awake`; under the assembly one apart.
    awk -F, -v scene=$s -v pol=$pol -v wall="$wall" '
      NR > 1 { w = $3; a = $4; c = $5; n[w] = a + $6 + (pol == "island" ? 0 : c);
               aw[w] += a; ck[w] += c; cnt[w]++;
               busy = a + (pol == "island" ? 0 : c);
               if (busy > 0) last[w] = $2;
               if (prev[w] != "" && a > prev[w]) up[w] += a - prev[w];
               prev[w] = a; endbusy[w] = busy }
      END { s = ""; A = 0; C = 0; U = 0;
            for (w = 0; w < 4; w++) {
              t = endbusy[w] > 0 ? "never" : sprintf("%.2f", last[w]);
              s = s (w ? ", " : "") t; A += aw[w] / cnt[w]; C += ck[w] / cnt[w]; U += up[w] }
            printf "| %s | %s | %d | %s | %.1f | %.1f | %d | %.2f |\n", scene, pol, n[0], s, A / 4, C / 4, U / 4, wall }' \
      "$O/$s-$pol/awake.csv"
  done
done
