#!/usr/bin/env python3
"""gen_scenes.py - write the scene library in scenes/ (torpor-scene version 1).

Usage:  python3 scripts/gen_scenes.py [OUT_DIR]      (default: scenes/ next to this script)

Python 3 standard library only. The committed JSON files are what `torpor run`
reads; this script is how they were made, so a layout can be changed in one place
and regenerated. Stacked bodies start exactly touching (centre heights are exact
sums of half sizes), so towers stand; bodies side by side in one layer (pyramid
rows, Jenga layers) are spaced with a gap of GAP metres so that position noise
cannot make neighbours overlap. scenes/README.md describes every scene.
"""
import json
import math
import os
import random
import sys

GAP = 0.005  # m, between side-by-side neighbours in one layer (documented in scenes/README.md)

# Randomization of the tower-like scenes: small enough that every tower stands.
RANDOM_TOWER = {"seed": 1, "pos_noise": 0.005, "yaw_noise_deg": 2.0,
                "mass_scale": [0.9, 1.1], "friction_range": [0.5, 0.7]}
# Scenes whose bodies touch side to side: material differences only.
RANDOM_MATERIAL = {"seed": 1, "pos_noise": 0.0, "yaw_noise_deg": 0.0,
                   "mass_scale": [0.9, 1.1], "friction_range": [0.5, 0.7]}
NO_RANDOM = {"seed": 1, "pos_noise": 0.0, "yaw_noise_deg": 0.0}


def num(x):
    """A number as short JSON text that reads back as the same float32 value."""
    if isinstance(x, int):
        return str(x)
    r = round(x, 7)
    if r == int(r) and abs(r) < 1e9:
        return str(int(r))
    return repr(r)


def vec(v):
    return "[" + ", ".join(num(x) for x in v) + "]"


def yaw_quat(angle):
    """Quaternion [x, y, z, w] of a rotation by `angle` radians about z."""
    return [0.0, 0.0, math.sin(angle / 2.0), math.cos(angle / 2.0)]


def body(name, size, pos, shape="box", quat=None, static=False, **extra):
    b = {"name": name, "shape": shape, "size": size, "pos": pos}
    if quat is not None:
        b["quat"] = quat
    if static:
        b["static"] = True
    b.update(extra)
    return b


def ground(sx=20.0, sy=20.0):
    """A static slab whose top face is the plane z = 0."""
    return body("ground", [sx, sy, 1.0], [0.0, 0.0, -0.5], static=True)


def body_text(b):
    parts = []
    for key, val in b.items():
        if isinstance(val, list):
            text = vec(val)
        elif isinstance(val, bool):
            text = "true" if val else "false"
        elif isinstance(val, str):
            text = json.dumps(val)
        else:
            text = num(val)
        parts.append('"%s": %s' % (key, text))
    return "    {" + ", ".join(parts) + "}"


def scene_text(name, bodies, randomize, events=(), sleep=None, solver=None):
    """The scene as JSON text, one body per line so that diffs stay readable."""
    sleep = sleep or {"enabled": True, "policy": "island", "linear_threshold": 0.05,
                      "angular_threshold": 0.15, "quiet_time": 0.5}
    solver = solver or {"iterations": 8, "mode": "colored"}
    head = [
        '  "format": "torpor-scene", "version": 1, "name": %s,' % json.dumps(name),
        '  "gravity": [0, 0, -9.81], "dt": 0.016666667, "substeps": 4,',
        '  "solver": %s,' % json.dumps(solver),
        '  "sleep": %s,' % json.dumps(sleep),
        '  "randomize": %s,' % json.dumps(randomize),
    ]
    lines = ["{"] + head + ['  "bodies": [', ",\n".join(body_text(b) for b in bodies), "  ],"]
    lines.append('  "events": [%s]' % ("" if not events else "\n" + ",\n".join(
        "    " + json.dumps(e) for e in events) + "\n  "))
    lines.append("}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- scenes

def tower():
    """Ten 1 m cubes of 1 kg in a column on a 20 m ground (the default scene)."""
    bodies = [ground()]
    for i in range(10):
        bodies.append(body("b%d" % i, [1, 1, 1], [0, 0, i + 0.5], density=1, friction=0.6, restitution=0))
    return "tower-10", bodies, RANDOM_TOWER, []


def tower_push():
    """The tower, disturbed four ways and left to recover (scripted events)."""
    _, bodies, _, _ = tower()
    bodies[0] = ground(40.0, 40.0)
    bodies.append(body("ball", [0.4, 0.4, 0.4], [4.0, 0.0, 0.2], shape="ball", density=15))
    events = [
        {"time": 1.5, "action": "impulse", "body": "b9", "value": [0.3, 0, 0]},
        {"time": 3.0, "action": "teleport", "body": "ball", "pos": [0.0, 0.0, 11.0]},
        {"time": 5.0, "action": "gravity", "value": [0, 0, -12.0]},
        {"time": 6.5, "action": "remove", "body": "ball"},
        {"time": 6.5, "action": "remove", "body": "b9"},
    ]
    return "tower-push", bodies, RANDOM_TOWER, events


def pyramid(rows=20):
    """A one-box-deep wall of 1 m cubes: row r holds rows - r cubes (210 for 20 rows)."""
    bodies = [ground(40.0, 10.0)]
    pitch = 1.0 + GAP
    for r in range(rows):
        n = rows - r
        for i in range(n):
            x = (i - (n - 1) / 2.0) * pitch
            bodies.append(body("r%dc%d" % (r, i), [1, 1, 1], [x, 0.0, r + 0.5]))
    return "pyramid-20", bodies, RANDOM_MATERIAL, []


def pyramid3d(layers=15):
    """Jolt's PyramidTest: 2 m boxes, layer i holds (layers - i)^2 boxes set on
    the gaps of the layer below (1,240 boxes for 15 layers). Neighbours in a
    layer are 3 cm apart, beyond the 2 cm contact margin: touching side faces
    would add 8 contact points per box that carry no load and overflow the
    default contact capacity (16 per dynamic body)."""
    gap = 0.03
    bodies = [ground(80.0, 80.0)]
    for i in range(layers):
        n = layers - i
        for a in range(n):
            for b in range(n):
                x = (-(n - 1) + 2.0 * a) * (2.0 + gap) / 2.0
                y = (-(n - 1) + 2.0 * b) * (2.0 + gap) / 2.0
                bodies.append(body("l%dx%dy%d" % (i, a, b), [2, 2, 2], [x, y, 1.0 + 2.0 * i]))
    return "pyramid3d-15", bodies, RANDOM_MATERIAL, []


def jenga(layers=18):
    """18 layers of 3 bricks of 0.75 x 0.25 x 0.15 m (a Jenga brick, 7.5 x 2.5 x 1.5 cm,
    scaled x10); each layer turned 90 degrees from the one below."""
    length, width, height = 0.75, 0.25, 0.15
    bodies = [ground()]
    pitch = width + GAP
    for layer in range(layers):
        z = height / 2.0 + layer * height
        for k in range(3):
            off = (k - 1) * pitch
            if layer % 2 == 0:
                size, pos = [length, width, height], [0.0, off, z]
            else:
                size, pos = [width, length, height], [off, 0.0, z]
            bodies.append(body("L%dk%d" % (layer, k), size, pos, density=600))
    rnd = dict(RANDOM_TOWER, pos_noise=0.002)
    # 16 sweeps: with the default 8 this slender tower keeps swaying at a few
    # cm/s and never sleeps (measured; scenes/README.md).
    return "jenga-18", bodies, rnd, []


def ring_tower(per_ring=12, rings=10):
    """A round tower: rings of 12 bricks (0.9 x 0.5 x 0.5 m, long side along the
    ring) centred 2 m from the axis; odd rings turned by half a brick (15 deg)."""
    radius, length, depth, height = 2.0, 0.9, 0.5, 0.5
    bodies = [ground()]
    step = 2.0 * math.pi / per_ring
    for r in range(rings):
        turn = 0.5 * step if r % 2 else 0.0
        for k in range(per_ring):
            a = k * step + turn
            pos = [radius * math.cos(a), radius * math.sin(a), height / 2.0 + r * height]
            bodies.append(body("R%dk%d" % (r, k), [length, depth, height], pos, quat=yaw_quat(a + math.pi / 2.0),
                               density=1000))
    rnd = dict(RANDOM_TOWER, pos_noise=0.003, yaw_noise_deg=1.0)
    return "ring-tower-12x10", bodies, rnd, []


def dominoes(count=30):
    """30 dominoes (0.1 x 0.5 x 1 m) 0.5 m apart along x; at 0.5 s the first one is
    pushed at its top edge (an impulse plus the matching angular impulse)."""
    bodies = [ground(40.0, 10.0)]
    x0 = -(count - 1) * 0.25
    for i in range(count):
        bodies.append(body("d%d" % i, [0.1, 0.5, 1.0], [x0 + 0.5 * i, 0.0, 0.5], density=1000))
    push = 10.0  # N s at the top edge, 0.5 m above the centre
    events = [
        {"time": 0.5, "action": "impulse", "body": "d0", "value": [push, 0, 0]},
        {"time": 0.5, "action": "angular_impulse", "body": "d0", "value": [0, push * 0.5, 0]},
    ]
    return "dominoes-30", bodies, RANDOM_MATERIAL, events


def card_pair(prefix, xc, z0, tilt, card):
    """Two cards leaning on each other, their top edges touching above xc, their
    lowest edges on the plane z = z0."""
    t, w, h = card
    zc = z0 + 0.5 * t * math.sin(tilt) + 0.5 * h * math.cos(tilt)
    a = 0.5 * t * math.cos(tilt) + 0.5 * h * math.sin(tilt)
    q_left = [0.0, math.sin(tilt / 2.0), 0.0, math.cos(tilt / 2.0)]
    q_right = [0.0, -math.sin(tilt / 2.0), 0.0, math.cos(tilt / 2.0)]
    return [body(prefix + "a", [t, w, h], [xc - a, 0.0, zc], quat=q_left, density=800, friction=0.8),
            body(prefix + "b", [t, w, h], [xc + a, 0.0, zc], quat=q_right, density=800, friction=0.8)]


def card_house():
    """A three-storey house of cards: 3, 2 and 1 leaning pairs of thin plates
    (0.02 x 0.7 x 1.0 m, 20 degrees from vertical) with flat cards bridging the
    tops of each storey. Edges rest on faces and edges: hard to settle."""
    card = (0.02, 0.7, 1.0)
    tilt = math.radians(20.0)
    t, w, h = card
    pair_height = h * math.cos(tilt) + t * math.sin(tilt)
    half = 0.5 * t * math.cos(tilt) + 0.5 * h * math.sin(tilt)  # half the foot width of a pair
    pitch = 2.0 * half + 0.05
    bodies = [ground()]
    z = 0.0
    for storey, pairs in enumerate((3, 2, 1)):
        for p in range(pairs):
            xc = (p - (pairs - 1) / 2.0) * pitch
            bodies += card_pair("s%dp%d" % (storey, p), xc, z, tilt, card)
        z += pair_height
        for f in range(pairs - 1):
            xc = (f - (pairs - 2) / 2.0) * pitch
            bodies.append(body("s%df%d" % (storey, f), [pitch + 0.2, w, t], [xc, 0.0, z + t / 2.0],
                               density=800, friction=0.8))
        z += t
    return "card-house-3", bodies, NO_RANDOM, []


def heap(count=200):
    """200 shapes (box, ball, capsule, cylinder, wedge mixed on the lattice; sizes 0.3-0.5 m,
    random yaw) on a 5 x 5 x 8 lattice above a static bin of 4 x 4 m, 2 m walls."""
    rng = random.Random(6)
    inner, wall_t, wall_h = 4.0, 0.2, 2.0
    bodies = [ground()]
    half = inner / 2.0 + wall_t / 2.0
    bodies.append(body("wall_xp", [wall_t, inner + 2 * wall_t, wall_h], [half, 0, wall_h / 2], static=True))
    bodies.append(body("wall_xm", [wall_t, inner + 2 * wall_t, wall_h], [-half, 0, wall_h / 2], static=True))
    bodies.append(body("wall_yp", [inner, wall_t, wall_h], [0, half, wall_h / 2], static=True))
    bodies.append(body("wall_ym", [inner, wall_t, wall_h], [0, -half, wall_h / 2], static=True))
    shapes = ["box", "ball", "capsule", "cylinder", "wedge"]
    spacing = 0.7
    for i in range(count):
        ix, iy, iz = i % 5, (i // 5) % 5, i // 25
        shape = shapes[(ix + 2 * iy + 3 * iz) % len(shapes)]
        s = [round(rng.uniform(0.3, 0.5), 3) for _ in range(3)]
        if shape in ("capsule", "cylinder"):
            s[0] = round(max(s[0], min(s[1], s[2])) + 0.1, 3)
        pos = [(ix - 2) * spacing, (iy - 2) * spacing, 0.5 + iz * spacing]
        bodies.append(body("h%d" % i, s, pos, shape=shape, quat=yaw_quat(rng.uniform(-math.pi, math.pi))))
    return "heap-200", bodies, RANDOM_MATERIAL, []


def many_pyramids(nx=20, ny=20, base=10):
    """Box2D v3's many_pyramids in 3D: 20 x 20 one-box-deep pyramid walls of base
    10 (55 cubes of 1 m each), 12 m apart along x and 2 m along y: 22,000 boxes."""
    pitch_x, pitch_y = base + 2.0, 2.0
    bodies = [ground(nx * pitch_x + 10.0, ny * pitch_y + 10.0)]
    for py in range(ny):
        for px in range(nx):
            cx = (px - (nx - 1) / 2.0) * pitch_x
            cy = (py - (ny - 1) / 2.0) * pitch_y
            for r in range(base):
                n = base - r
                for i in range(n):
                    x = cx + (i - (n - 1) / 2.0) * (1.0 + GAP)
                    bodies.append(body("p%d_%d_%d_%d" % (px, py, r, i), [1, 1, 1], [x, cy, r + 0.5]))
    return "many-pyramids-20x20", bodies, RANDOM_MATERIAL, []


SCENES = {
    "tower.json": tower, "tower_push.json": tower_push, "pyramid.json": pyramid, "pyramid3d.json": pyramid3d,
    "jenga.json": jenga, "ring_tower.json": ring_tower, "dominoes.json": dominoes,
    "card_house.json": card_house, "heap.json": heap, "many_pyramids.json": many_pyramids,
}


def main(argv):
    out = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scenes")
    os.makedirs(out, exist_ok=True)
    for filename, make in SCENES.items():
        name, bodies, randomize, events, *solver = make()
        text = scene_text(name, bodies, randomize, events, solver=solver[0] if solver else None)
        json.loads(text)  # the file must be valid JSON
        with open(os.path.join(out, filename), "w") as f:
            f.write(text)
        dynamic = sum(1 for b in bodies if not b.get("static"))
        print("%-20s %-22s %6d bodies (%d dynamic)" % (filename, name, len(bodies), dynamic))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
