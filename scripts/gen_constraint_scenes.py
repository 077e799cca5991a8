#!/usr/bin/env python3
"""Write the constraint scenes of scenes/README.md ("Constraints between bodies"):
rope_bridge, servo_door, motor_cart, crane, bungee, spring_pad and rod_pendulum
(torpor-scene version 2, `constraints`; docs/constraints.md). Python 3 standard
library only. Edit here and rerun:

    python3 scripts/gen_constraint_scenes.py

They follow seed 004's examples (Hinges, Ropes, Bouncing, Winches, Springs,
Rods) in torpor's frame: z up, metres, the ground's top face at z = 0.
"""
import json
import math
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GROUND = {"name": "ground", "shape": "box", "size": [40, 40, 1], "pos": [0, 0, -0.5], "static": True}
UP = [0, 0, 1]  # an attachment axis pointing up (the hinge turns about it)


def r(x):
    """Round for the file (6 decimals)."""
    return [round(v, 6) for v in x] if isinstance(x, (list, tuple)) else round(x, 6)


def scene(name, bodies, constraints, events=None, sleep=True):
    out = {"format": "torpor-scene", "version": 2, "name": name,
           "gravity": [0, 0, -9.81], "dt": 0.016666667, "substeps": 4,
           "sleep": {"enabled": sleep}, "bodies": [GROUND] + bodies, "constraints": constraints}
    if events:
        out["events"] = events
    return out


def bridge_rest(n, w, gap, rope):
    """The rest pose of n planks of length w hinged end to end and hung from
    two anchors `gap` beyond their ends at the planks' height on massless ropes
    of length `rope`: rigid-body statics in the x-z plane, no solver.

    The horizontal pull H is the same everywhere; each end carries half the
    weight, so the rope's slope is (n W / 2) / H and plank i's is
    (V_i - W / 2) / H, V_i = (n / 2 - i) W the upward force at its left pin
    (the moments about its centre). H is found by bisection so that the chain
    spans the anchors. Returns [(x, z, angle)] of the plank centres, z from the
    anchors' height, angle the turn about y (down to the right positive)."""
    span = n * w + 2 * gap

    def slopes(h):
        return [math.atan2(n / 2, h)] + [math.atan2(n / 2 - i - 0.5, h) for i in range(n)]

    def width(h):
        a = slopes(h)
        return 2 * rope * math.cos(a[0]) + sum(w * math.cos(t) for t in a[1:])

    lo, hi = 1e-6, 1e6  # in units of a plank's weight
    for _ in range(200):
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if width(mid) < span else (lo, mid)
    a = slopes(math.sqrt(lo * hi))
    x, z = -span / 2 + rope * math.cos(a[0]), -rope * math.sin(a[0])
    out = []
    for t in a[1:]:
        out.append((x + w / 2 * math.cos(t), z - w / 2 * math.sin(t), t))
        x, z = x + w * math.cos(t), z - w * math.sin(t)
    return out


def rope_bridge():
    """Eight 2 kg planks (0.5 x 1 x 0.05 m) hinged edge to edge about y between
    two posts, hung at the four outer corners on 0.2 m ropes, placed at their
    rest pose (bridge_rest); island sleep."""
    n, w, gap, rope, top = 8, 0.5, 0.15, 0.2, 2.0
    half = n * w / 2
    bodies = [{"name": "post_l", "shape": "box", "size": [0.2, 1.2, 2], "pos": [-half - 0.25, 0, 1], "static": True},
              {"name": "post_r", "shape": "box", "size": [0.2, 1.2, 2], "pos": [half + 0.25, 0, 1], "static": True}]
    for i, (x, z, t) in enumerate(bridge_rest(n, w, gap, rope)):
        bodies.append({"name": f"plank{i}", "shape": "box", "size": [w, 1, 0.05], "pos": r([x, 0, top + z]),
                       "quat": r([0, math.sin(t / 2), 0, math.cos(t / 2)]), "mass": 2})
    cons = []
    for i in range(n - 1):
        cons.append({"name": f"hinge{i}", "type": "hinge", "body0": f"plank{i}", "pos0": [w / 2, 0, 0],
                     "axis0": [0, 1, 0], "body1": f"plank{i + 1}", "pos1": [-w / 2, 0, 0], "axis1": [0, 1, 0]})
    for side, post, plank, sx in (("l", "post_l", "plank0", -1), ("r", "post_r", f"plank{n - 1}", 1)):
        for y in (-0.45, 0.45):
            cons.append({"name": f"rope_{side}{'+' if y > 0 else '-'}", "type": "rope", "body0": post,
                         "pos0": [-0.1 * sx, y, 1], "body1": plank, "pos1": [w / 2 * sx, y, 0],
                         "length": rope})
    return scene("rope_bridge", bodies, cons)


def servo_door():
    """Seed 004's door: a 10 kg door (1 x 0.1 x 2 m) on a servo hinge about z at
    its edge on a static frame, limits [0, 1.75] rad, 2 rad/s; events open it
    (target 1.57 rad) at 1 s and close it (0) at 3 s."""
    bodies = [{"name": "frame", "shape": "box", "size": [0.2, 0.2, 2.2], "pos": [0, 0, 1.1], "static": True},
              {"name": "door", "shape": "box", "size": [1, 0.1, 2], "pos": [0.6, 0, 1.1], "mass": 10}]
    cons = [{"name": "door_hinge", "type": "hinge", "body0": "frame", "pos0": [0.1, 0, 0], "axis0": UP,
             "body1": "door", "pos1": [-0.5, 0, 0], "axis1": UP, "actuator": "servo", "target": 0,
             "speed": 2, "max_force": 500, "limits": [0, 1.75]}]
    events = [{"time": 1.0, "action": "constraint", "constraint": "door_hinge", "param": "target", "to": 1.57},
              {"time": 3.0, "action": "constraint", "constraint": "door_hinge", "param": "target", "to": 0}]
    return scene("servo_door", bodies, cons, events)


def motor_cart():
    """Seed 004's cart: a 20 kg chassis (2 x 3 x 0.4 m) on four 2 kg cylinder
    wheels (0.9 m across, 0.3 m wide, axles along x) on motor hinges at
    4 rad/s, 50 N m: it drives off along y at 4 x 0.45 = 1.8 m/s."""
    z = 0.45
    bodies = [{"name": "chassis", "shape": "box", "size": [2, 3, 0.4], "pos": [0, 0, z + 0.2], "mass": 20}]
    cons = []
    for i, (x, y) in enumerate(((1.15, 1.1), (-1.15, 1.1), (1.15, -1.1), (-1.15, -1.1))):
        side = 1 if x > 0 else -1
        bodies.append({"name": f"wheel{i}", "shape": "cylinder", "size": [0.3, 0.9, 0.9], "pos": [x, y, z],
                       "mass": 2})
        cons.append({"name": f"axle{i}", "type": "hinge", "body0": "chassis", "pos0": r([x - 0.15 * side, y, -0.2]),
                     "body1": f"wheel{i}", "pos1": r([-0.15 * side, 0, 0]), "actuator": "motor",
                     "velocity": -4, "max_force": 50})
    return scene("motor_cart", bodies, cons, sleep=False)


def crane():
    """Seed 004's crane: a static jib, a 1 kg hook (0.5 m cube) on a 4.7 m
    winch rope, welded to a 3 kg crate (0.6 m cube) resting on the ground.
    Events: winch_target 1.7 m at 1 s (lifts the crate 3 m at 1.5 m/s), back
    to 4.7 m at 5 s (sets it down)."""
    bodies = [{"name": "jib", "shape": "box", "size": [6, 0.4, 0.4], "pos": [2, 0, 6], "static": True},
              {"name": "crate", "shape": "box", "size": [0.6, 0.6, 0.6], "pos": [0, 0, 0.3], "mass": 3},
              {"name": "hook", "shape": "box", "size": [0.5, 0.5, 0.5], "pos": [0, 0, 0.85], "mass": 1}]
    cons = [{"name": "cable", "type": "rope", "body0": "jib", "pos0": [-2, 0, -0.2], "body1": "hook",
             "pos1": [0, 0, 0.25], "length": 4.7, "winch": True, "winch_speed": 1.5},
            {"name": "sling", "type": "weld", "body0": "hook", "body1": "crate"}]
    events = [{"time": 1.0, "action": "constraint", "constraint": "cable", "param": "winch_target", "to": 1.7},
              {"time": 5.0, "action": "constraint", "constraint": "cable", "param": "winch_target", "to": 4.7}]
    return scene("crane", bodies, cons, events)


def bungee():
    """Seed 004's bungee: a 1 kg weight (0.6 m cube) dropped from right under a
    static beam on a 6 m rope of restitution 0.5: it falls 6 m, comes back up
    at half the speed (to a quarter of the fall, 1.5 m above the taut point)
    and bounces lower each time."""
    bodies = [{"name": "beam", "shape": "box", "size": [2, 0.3, 0.3], "pos": [0, 0, 9], "static": True},
              {"name": "weight", "shape": "box", "size": [0.6, 0.6, 0.6], "pos": [0, 0, 8.55], "mass": 1}]
    cons = [{"name": "cord", "type": "rope", "body0": "beam", "pos0": [0, 0, -0.15], "body1": "weight",
             "pos1": [0, 0, 0.3], "length": 6, "restitution": 0.5}]
    return scene("bungee", bodies, cons)


def spring_pad():
    """A 1 kg pad (1 x 1 x 0.2 m) on a vertical slider and a spring from the
    ground (free length 1.2 m, 400 N/m, 10 N s/m); a 2 kg box dropped on it
    from 0.8 m: it settles (3 kg) m g / k = 7.4 cm below the free length."""
    bodies = [{"name": "pad", "shape": "box", "size": [1, 1, 0.2], "pos": [0, 0, r(1.2 - 9.81 / 400)], "mass": 1},
              {"name": "box", "shape": "box", "size": [0.4, 0.4, 0.4], "pos": [0, 0, 2.3], "mass": 2}]
    cons = [{"name": "guide", "type": "prismatic", "body0": "world", "pos0": [0, 0, 0], "axis0": UP,
             "body1": "pad", "pos1": [0, 0, 0], "axis1": UP},
            {"name": "spring", "type": "spring", "body0": "world", "pos0": [0, 0, 0], "body1": "pad",
             "length": 1.2, "stiffness": 400, "damping": 10}]
    return scene("spring_pad", bodies, cons)


def rod_pendulum():
    """A 1 kg ball (0.2 m) on a 2 m rod from (0, 0, 3), released at 30 degrees:
    period 2 pi sqrt(L / g) (1 + a^2 / 16 + 11 a^4 / 3072) = 2.886 s."""
    a, L = math.radians(30), 2.0
    bodies = [{"name": "bob", "shape": "ball", "size": [0.2, 0.2, 0.2], "mass": 1,
               "pos": r([L * math.sin(a), 0, 3 - L * math.cos(a)])}]
    cons = [{"name": "rod", "type": "rod", "body0": "world", "pos0": [0, 0, 3], "body1": "bob", "length": L}]
    return scene("rod_pendulum", bodies, cons, sleep=False)


def main():
    for make in (rope_bridge, servo_door, motor_cart, crane, bungee, spring_pad, rod_pendulum):
        s = make()
        path = ROOT / "scenes" / f"{s['name']}.json"
        text = json.dumps(s, indent=1)
        path.write_text(text + "\n")
        print(f"wrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
