#!/usr/bin/env python3
"""Write the robot scenes scenes/arm_tower.json and scenes/walker.json
(torpor-scene version 2: joints and compound bodies; scenes/README.md says what
they are). Python 3 standard library only. Edit here and rerun:

    python3 scripts/gen_robot_scenes.py

Geometry is in metres; every body pose is the configuration at q = 0.
"""
import json
import math
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TURN_Y = [0, math.sqrt(0.5), 0, math.sqrt(0.5)]  # local x -> world -z: a capsule standing up


def r(x):
    """Round for the file (6 decimals; poses are exact sums of these)."""
    return [round(v, 6) for v in x] if isinstance(x, (list, tuple)) else round(x, 6)


def arm_tower():
    """A fixed-base 7-dof arm on a pedestal beside a tower of five 0.1 m cubes.

    At q = 0 the arm reaches along +x at height H (the top cube's height).
    Joints from the base: yaw (z), pitch (y), roll (x), pitch, roll, pitch, roll.
    The yaw joint starts at q0 = -1 rad and a velocity motor turns it at
    0.8 rad/s; its upper limit 2.2 rad stops it. The tower stands on the +y axis
    at radius 0.62 m, so the arm sweeps through the top cube at about t = 3.2 s
    and pushes it off towards -x, above the cubes below (the arm's underside is
    3 cm above the fourth cube). The other six joints hold 0 with PD drives.
    The cubes' friction is 0.3: with 0.6 the push needed to slide the top cube
    (0.6 m g = 5.9 N) exceeds the one that tips the whole tower about its base
    edge (5 m g x 0.05 m / 0.45 m = 5.4 N), and the tower falls as one.
    """
    H = 0.46  # arm axis height, m
    cube, n = 0.1, 5
    tower_y = 0.62
    bodies = [
        {"name": "ground", "size": [4, 4, 1], "pos": [0, 0, -0.5], "static": True},
        {"name": "pedestal", "size": [0.2, 0.2, 0.36], "pos": [0, 0, 0.18], "static": True},
    ]
    for i in range(n):
        bodies.append({"name": f"cube{i}", "size": [cube] * 3, "pos": r([0, tower_y, cube / 2 + cube * i]),
                       "friction": 0.3})
    # links along +x: (name, length, axis of the joint at its inner end)
    t = 0.07  # link cross-section, m
    links = [("upper_arm", 0.20, [0, 1, 0]), ("upper_roll", 0.15, [1, 0, 0]), ("forearm", 0.15, [0, 1, 0]),
             ("forearm_roll", 0.10, [1, 0, 0]), ("wrist", 0.08, [0, 1, 0])]
    bodies.append({"name": "turret", "size": [0.12, 0.12, 0.09], "pos": r([0, 0, 0.415])})
    joints = [{"name": "yaw", "type": "revolute", "parent": "world", "child": "turret", "axis": [0, 0, 1],
               "anchor": [0, 0, -0.045], "q0": -1.0, "limits": [-1.2, 2.2], "drive": "velocity",
               "target_qd": 0.8, "max_effort": 40, "damping": 0.5}]
    x, parent = 0.0, "turret"
    for name, length, axis in links:
        bodies.append({"name": name, "size": [length, t, t], "pos": r([x + length / 2, 0, H])})
        joints.append({"name": name + "_joint", "type": "revolute", "parent": parent, "child": name, "axis": axis,
                       "anchor": r([-length / 2, 0, 0]), "drive": "position", "kp": 1000, "kd": 40,
                       "max_effort": 200, "damping": 0.5})
        x += length
        parent = name
    # the hand: a compound link, a short wrist capsule and a paddle across it
    hand_len = 0.08
    bodies.append({"name": "hand", "pos": r([x + hand_len / 2, 0, H]),
                   "shapes": [{"shape": "capsule", "size": [hand_len, 0.06, 0.06]},
                              {"size": [0.03, 0.16, 0.1], "pos": [0.04, 0, 0]}]})
    joints.append({"name": "hand_joint", "type": "revolute", "parent": parent, "child": "hand", "axis": [1, 0, 0],
                   "anchor": r([-hand_len / 2, 0, 0]), "drive": "position", "kp": 1000, "kd": 40,
                   "max_effort": 200, "damping": 0.5})
    return {"format": "torpor-scene", "version": 2, "name": "arm_tower", "gravity": [0, 0, -9.81],
            "dt": 0.016666667, "substeps": 4, "bodies": bodies, "joints": joints}


def walker():
    """A four-legged walker: a 0.6 x 0.3 x 0.1 m torso of 4 kg on a free joint and
    four legs of two links (hip and knee hinges about y), each link a capsule
    0.25 m long, 5 cm thick, standing up (compound bodies: one turned capsule; the
    shin adds a 6 cm ball foot). PD drives (kp 200 N m/rad, kd 10 N m s/rad, max
    120 N m) hold every hinge at 0: straight legs. At q = 0 the feet are 1 cm
    above the ground.
    """
    leg, foot_d, torso = 0.25, 0.06, [0.6, 0.3, 0.1]
    H = 0.01 + foot_d / 2 + 2 * leg + torso[2] / 2  # torso centre height
    bodies = [{"name": "ground", "size": [20, 20, 1], "pos": [0, 0, -0.5], "static": True},
              {"name": "torso", "size": torso, "pos": r([0, 0, H]), "mass": 4}]
    joints = [{"name": "root", "type": "free", "parent": "world", "child": "torso"}]
    hip_z = H - torso[2] / 2
    for name, sx, sy in (("fl", 1, 1), ("fr", 1, -1), ("hl", -1, 1), ("hr", -1, -1)):
        hx, hy = sx * 0.25, sy * 0.15
        thigh, shin = f"{name}_thigh", f"{name}_shin"
        bodies.append({"name": thigh, "pos": r([hx, hy, hip_z - leg / 2]),
                       "shapes": [{"shape": "capsule", "size": [leg, 0.05, 0.05], "quat": r(TURN_Y)}]})
        bodies.append({"name": shin, "pos": r([hx, hy, hip_z - 1.5 * leg]),
                       "shapes": [{"shape": "capsule", "size": [leg, 0.05, 0.05], "quat": r(TURN_Y)},
                                  {"shape": "ball", "size": [foot_d] * 3, "pos": r([0, 0, -leg / 2])}]})
        drive = {"drive": "position", "kp": 200, "kd": 10, "max_effort": 120, "damping": 0.1}
        joints.append({"name": f"{name}_hip", "type": "revolute", "parent": "torso", "child": thigh,
                       "axis": [0, 1, 0], "anchor": r([0, 0, leg / 2]), **drive})
        joints.append({"name": f"{name}_knee", "type": "revolute", "parent": thigh, "child": shin,
                       "axis": [0, 1, 0], "anchor": r([0, 0, leg / 2]), **drive})
    return {"format": "torpor-scene", "version": 2, "name": "walker", "gravity": [0, 0, -9.81],
            "dt": 0.016666667, "substeps": 4, "sleep": {"enabled": False}, "bodies": bodies, "joints": joints}


def write(name, scene):
    text = json.dumps(scene, indent=None, separators=(", ", ": "))
    # one body or joint per line, so errors point at a readable line
    text = text.replace('"bodies": [', '"bodies": [\n  ').replace('"joints": [', '\n "joints": [\n  ')
    text = text.replace('}, {"name"', '},\n  {"name"')
    (ROOT / "scenes" / name).write_text(text + "\n")


if __name__ == "__main__":
    write("arm_tower.json", arm_tower())
    write("walker.json", walker())
