#!/usr/bin/env bash
# tests/gpu/test_check.sh GPU_CHECK - the device check's own logic without a GPU
# (ctest gpu_check_logic): tests/gpu/run.sh and gpu_check against the fake
# device of TORPOR_GPU_CHECK_FAKE (the CPU backend standing in for CUDA;
# nothing here runs on a GPU). Asserts the order of the results (headline,
# then the robots' rows), equal parity rows (a robot scene's joint arrays
# included), the refusal, the writes step's rows (constraints and movers), a
# simulated device fault stopping its process but not the next scene's, a
# hanging step cut at its limit with the later steps skipped once the budget
# is spent, and the choice between a
# prebuilt gpu_check whose sources match and a build.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$here"
bin="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
errors=0
check() { # description, then a command that must succeed
  local what=$1; shift
  if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; errors=$((errors + 1)); fi
}
has() { grep -qF -- "$2" "$1"; }
count() { grep -cF -- "$2" "$1"; }
line_of() { grep -nF -- "$2" "$1" | head -1 | cut -d: -f1; }
run() { # out dir, then VAR=value settings; echoes run.sh's exit status
  local o=$1; shift
  env "$@" bash tests/gpu/run.sh "$o" > "$o.stdout" 2>&1
  echo $?
}
common=(GPU_CHECK_BIN="$bin" GPU_CHECK_HEAD_WORLDS=4 GPU_CHECK_ROBOT_WORLDS=2,3 GPU_CHECK_BENCH_WORLDS=2)

# 1. A fake device that computes like the CPU: every step passes, headline first, robots next.
rc=$(run "$tmp/cpu" "${common[@]}" TORPOR_GPU_CHECK_FAKE=cpu GPU_CHECK_STEPS=headline,robots,smoke,parity,refused,writes,overflow,robot_lanes \
  GPU_CHECK_SCENES="scenes/tower.json scenes/cartpole.json scenes/mjcf/humanoid.xml tests/scenes/sleep/c02_throw.json")
r="$tmp/cpu/results.md"
check "fake cpu: exit 0" [ "$rc" = 0 ]
check "fake cpu: marked as not a GPU run" has "$r" "FAKE DEVICE (TORPOR_GPU_CHECK_FAKE=cpu): nothing here ran on a GPU"
check "fake cpu: headline rows (tower at 4 worlds, awake and all asleep) before the smoke table" \
  bash -c "[ $(line_of "$r" '| scenes/tower.json | 4 | default | awake') -lt $(line_of "$r" '## Smoke') ] &&
           [ $(line_of "$r" '| scenes/tower.json | 4 | default | all asleep') -lt $(line_of "$r" '## Smoke') ]"
check "fake cpu: the tower all asleep in the headline" has "$r" "all asleep after"
check "fake cpu: robot rows (cart-pole and walker at 2 then 3 worlds, awake) after the headline, before the smoke" \
  bash -c "[ $(line_of "$r" '## Robots') -gt $(line_of "$r" '| scenes/tower.json | 4 | default | all asleep') ] &&
           [ $(line_of "$r" '| scenes/cartpole.json | 2 | default | awake') -gt $(line_of "$r" '## Robots') ] &&
           [ $(line_of "$r" '| scenes/walker.json | 2 | default | awake') -gt $(line_of "$r" '| scenes/cartpole.json | 2 | default | awake') ] &&
           [ $(line_of "$r" '| scenes/cartpole.json | 3 | default | awake') -gt $(line_of "$r" '| scenes/walker.json | 2 | default | awake') ] &&
           [ $(line_of "$r" '| scenes/walker.json | 3 | default | awake') -lt $(line_of "$r" '## Smoke') ]"
check "fake cpu: the imported humanoid's robot rows after the walker's, at 2 then 3 worlds" \
  bash -c "[ $(line_of "$r" '| scenes/mjcf/humanoid.xml | 2 | default | awake') -gt $(line_of "$r" '| scenes/walker.json | 2 | default | awake') ] &&
           [ $(line_of "$r" '| scenes/mjcf/humanoid.xml | 3 | default | awake') -lt $(line_of "$r" '## Smoke') ]"
check "fake cpu: 6 robot rows, none all asleep" [ "$(sed -n '/## Robots/,/## Smoke/p' "$r" | grep -c '| awake (sleep off) |')" = 6 ]
check "fake cpu: smoke, 2 scenes x 3 equal rows" [ "$(sed -n '/## Smoke/,/## Parity/p' "$r" | grep -c '| yes |')" = 6 ]
check "fake cpu: parity rows equal, one per scene (cart-pole's and the humanoid's included)" \
  [ "$(sed -n '/## Parity/,/## Refused/p' "$r" | grep -c '| yes |')" = 4 ]
check "fake cpu: the cart-pole's parity row" bash -c "sed -n '/## Parity/,/## Refused/p' '$r' | grep -q '| scenes/cartpole.json | 8 | 120 | .* | yes |'"
check "fake cpu: one process per parity scene" [ "$(count "$r" 'gpu_check parity: 0 failure(s)')" = 5 ]
check "fake cpu: many_pyramids refused as expected, and nothing else" [ "$(count "$r" 'refused as expected')" = 1 ]
check "fake cpu: writes, 5 constraint and mover scenes x 3 equal rows" \
  [ "$(sed -n '/## Constraints and movers/,/## Contact overflow/p' "$r" | grep -c '| yes |')" = 15 ]
check "fake cpu: the crane's rows after its writes and resets" \
  bash -c "sed -n '/## Constraints and movers/,/## Contact overflow/p' '$r' | grep -q '| scenes/crane.json | 8 | 120 | .* | yes |'"
check "fake cpu: the walker at 4 and 16 solve lanes in the robot lanes step" \
  bash -c "sed -n '/## Robot solve lanes/,\$p' '$r' | grep -q '| scenes/walker.json | 4 | 4 | awake' &&
           sed -n '/## Robot solve lanes/,\$p' '$r' | grep -q '| scenes/walker.json | 4 | 16 | awake'"
check "fake cpu: step table, 9 steps passed" [ "$(grep -c '| passed |' "$r")" = 9 ]
check "fake cpu: steps not asked for not run" bash -c "! grep -q '## Benchmarks' '$r'"

# 2. A device fault: the process stops (exit 3), the next scene's process runs.
rc=$(run "$tmp/fault" "${common[@]}" TORPOR_GPU_CHECK_FAKE=fault GPU_CHECK_STEPS=parity,overflow \
  GPU_CHECK_SCENES="scenes/tower.json scenes/jenga.json")
r="$tmp/fault/results.md"
check "fault: exit 1" [ "$rc" = 1 ]
check "fault: each of 3 processes reports the simulated fault" [ "$(count "$r" 'simulated device fault')" = 3 ]
check "fault: the status and the stop are printed" [ "$(count "$r" 'device step failed: cuda error')" = 3 ]
check "fault: each process stops after it" [ "$(count "$r" 'the rest of this process is not run (exit 3)')" = 3 ]
check "fault: no failure count line (the process stopped first)" bash -c "! grep -q 'gpu_check parity:' '$r'"
check "fault: the overflow step marked a device fault" has "$r" "| overflow | 20 | "
check "fault: its result names the fault" has "$r" "DEVICE FAULT (exit 3"
check "fault: parity failed" has "$r" "FAILED (see its rows)"

# 3. A hanging device: the step is cut at what is left of the budget, later ones are not run.
t0=$(date +%s)
rc=$(run "$tmp/hang" "${common[@]}" TORPOR_GPU_CHECK_FAKE=hang GPU_CHECK_STEPS=smoke,overflow GPU_CHECK_BUDGET_S=12)
took=$(( $(date +%s) - t0 ))
r="$tmp/hang/results.md"
check "hang: exit 1" [ "$rc" = 1 ]
check "hang: smoke cut by its limit" has "$r" "| smoke | "
check "hang: the timeout is reported" has "$r" "TIMEOUT after"
check "hang: the overflow step not run, the budget spent" has "$r" "| overflow | 20 | - | not run: the budget of 12 s is spent |"
check "hang: within the budget and the kill grace ($took s)" [ "$took" -le 20 ]

# 4. The prebuilt gpu_check: used when its sources' hash matches, else a build is due.
mkdir -p "$tmp/pre"
cp "$bin" "$tmp/pre/gpu_check"
bash tests/gpu/run.sh --sources-hash > "$tmp/pre/sources.sha256"
echo "test build" > "$tmp/pre/info.txt"
rc=$(run "$tmp/pre1" GPU_CHECK_PREBUILT="$tmp/pre" TORPOR_GPU_CHECK_FAKE=cpu GPU_CHECK_STEPS=refused)
check "prebuilt: used when the sources match" has "$tmp/pre1/results.md" "gpu_check: prebuilt, sources match (test build )"
check "prebuilt: exit 0" [ "$rc" = 0 ]
echo 0000000000000000 > "$tmp/pre/sources.sha256"
rc=$(run "$tmp/pre2" GPU_CHECK_PREBUILT="$tmp/pre" TORPOR_GPU_CHECK_FAKE=cpu GPU_CHECK_STEPS=refused GPU_CHECK_BUDGET_S=3)
r="$tmp/pre2/results.md"
check "prebuilt: stale sources give a build" has "$r" "gpu_check: building it here (the prebuilt one in $tmp/pre is stale"
check "prebuilt: the build not started without budget, nothing else run" \
  bash -c "grep -qF '| build | 300 | - | not run: the budget of 3 s is spent |' '$r' && ! grep -q 'refused as expected' '$r'"
check "prebuilt: exit 1" [ "$rc" = 1 ]

# 5. gpu_check's own argument checks.
"$bin" /dev/null bench --worlds 0 scenes/tower.json > /dev/null 2>&1
check "gpu_check: a bad world count is a usage error (exit 2)" [ $? = 2 ]
TORPOR_GPU_CHECK_FAKE=gpu "$bin" /dev/null probe > /dev/null 2>&1
check "gpu_check: an unknown fake mode is refused (exit 2)" [ $? = 2 ]

if [ $errors -ne 0 ]; then
  echo "$errors check(s) failed; outputs:"; for f in "$tmp"/*.stdout; do echo "--- $f"; cat "$f"; done
  exit 1
fi
echo "all checks passed"
