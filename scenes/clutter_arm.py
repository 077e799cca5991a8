"""Writes scenes/clutter_arm.json: a fixed-base arm in a bin of resting objects.

    python3 scenes/clutter_arm.py > scenes/clutter_arm.json

A SCARA-style arm (two links turning about z at 0.32 m, a finger hanging from
the second to 3 cm above the floor) on a static pedestal at the centre of a
1.7 m square bin with 0.15 m walls. 128 objects rest on the floor on a 0.13 m
grid, cycling box, ball and upright cylinder (0.07 m, 0.5 kg boxes); the one at
(0.455, 0.065) is "marked" (torpor.envs.clutter pushes it to a goal). Velocity
actuators (kv 20 N m s, 30 N m) drive the two joints, ctrl in [-1.5, 1.5] rad/s.
"""
import json

SIZE = 0.07
bodies = [
    {"name": "ground", "size": [3, 3, 1], "pos": [0, 0, -0.5], "static": True},
    {"name": "pedestal", "size": [0.16, 0.16, 0.28], "pos": [0, 0, 0.14], "static": True},
]
for i, (x, y, sx, sy) in enumerate([(0.875, 0, 0.05, 1.8), (-0.875, 0, 0.05, 1.8), (0, 0.875, 1.7, 0.05),
                                    (0, -0.875, 1.7, 0.05)]):
    bodies.append({"name": f"wall{i}", "size": [sx, sy, 0.15], "pos": [x, y, 0.075], "static": True})
objects = []
grid = [-0.715 + 0.13 * k for k in range(12)]
for gx in grid:
    for gy in grid:
        if abs(gx) < 0.2 and abs(gy) < 0.2:
            continue  # the pedestal's square
        kind = len(objects) % 3
        marked = abs(gx - 0.455) < 1e-6 and abs(gy - 0.065) < 1e-6
        name = "marked" if marked else f"obj{len(objects)}"
        pos = [round(gx, 4), round(gy, 4), SIZE / 2]
        if marked or kind == 0:
            body = {"name": name, "size": [SIZE] * 3, "pos": pos, "mass": 0.5}
        elif kind == 1:
            body = {"name": name, "shape": "ball", "size": [SIZE] * 3, "pos": pos, "density": 500}
        else:  # a cylinder lies along its local x: stood on its end
            body = {"name": name, "shape": "cylinder", "size": [SIZE] * 3, "pos": pos, "density": 500,
                    "quat": [0, 0.7071068, 0, 0.7071068]}
        objects.append(body)
bodies += objects
bodies += [
    {"name": "link1", "size": [0.4, 0.05, 0.04], "pos": [0.2, 0, 0.32], "density": 500},
    {"name": "link2", "pos": [0.575, 0, 0.36], "density": 500,
     "shapes": [{"size": [0.35, 0.05, 0.04]}, {"size": [0.04, 0.04, 0.29], "pos": [0.155, 0, -0.185]}]},
]
scene = {
    "format": "torpor-scene", "version": 2, "name": "clutter_arm", "gravity": [0, 0, -9.81],
    "dt": 0.016666667, "substeps": 4, "bodies": bodies,
    "joints": [
        {"name": "shoulder", "type": "revolute", "parent": "world", "child": "link1", "axis": [0, 0, 1],
         "anchor": [-0.2, 0, 0], "damping": 0.5},
        {"name": "elbow", "type": "revolute", "parent": "link1", "child": "link2", "axis": [0, 0, 1],
         "anchor": [-0.175, 0, 0], "limits": [-2.6, 2.6], "damping": 0.5},
    ],
    "actuators": [
        {"name": "shoulder", "type": "velocity", "joint": "shoulder", "kv": 20, "ctrl_range": [-1.5, 1.5],
         "force_range": [-30, 30]},
        {"name": "elbow", "type": "velocity", "joint": "elbow", "kv": 20, "ctrl_range": [-1.5, 1.5],
         "force_range": [-30, 30]},
    ],
}
lines = json.dumps(scene, indent=None).replace('{"name"', '\n  {"name"')
print(lines)
