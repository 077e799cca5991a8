"""The 3D viewer page in a real headless browser, and --video through ffmpeg (run by ctest).

The page (`torpor view`) is loaded in Debian's chromium from a run's output with
`#frame=N&probe`: the page then writes what its three.js scene graph holds (each
body group's position, orientation and colour) into <pre id="probe">, which
`--dump-dom` prints. Those are checked against the run's own CSV files: the
last frame against state.csv, a middle frame against bodies.csv at its step.
A screenshot is checked to show the scene (pixel variance, awake-red pixels).
Needs TORPOR_CLI (the torpor executable; CMake passes it), chromium, ffmpeg, ffprobe.
"""
import csv
import html
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
CLI = os.environ.get("TORPOR_CLI", str(ROOT / "build" / "torpor"))
SCENE = ROOT / "tests" / "scenes" / "all_shapes.json"
CHROMIUM = ["chromium", "--headless", "--disable-gpu", "--no-sandbox", "--enable-unsafe-swiftshader",
            "--hide-scrollbars", "--user-data-dir=%s"]
# awake red, sleeping grey, checking orange, static slate: the viewer's and snapshot.png's colours
COLORS = {"awake": (0.85, 0.16, 0.15), "sleeping": (0.66, 0.66, 0.66), "checking": (1.0, 0.55, 0.1),
          "static": (0.3, 0.32, 0.35)}
STEPS, EVERY, WORLDS = 90, 3, [0, 2, 3]


def run(*args, **kw):
    return subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=120, **kw)


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    d = tmp_path_factory.mktemp("view")
    r = run(CLI, "run", SCENE, "--worlds", 4, "--steps", STEPS, "--record-every", EVERY, "--record-worlds", "0,2-3",
            "--every", EVERY, "--record-bodies", "--view", "--quiet", "--out", d)
    assert r.returncode == 0, r.stderr
    return d


def browser(out, *args):
    profile = out / "chromium-profile"
    cmd = [a.replace("%s", str(profile)) for a in CHROMIUM] + list(args)
    return run(*cmd)


def probe(out, frame):
    r = browser(out, "--dump-dom", f"file://{out / 'view.html'}#frame={frame}&probe")
    m = re.search(r'<pre id="probe">(.*?)</pre>', r.stdout, re.S)
    assert m and m.group(1), f"no probe output from the page:\n{r.stderr[-2000:]}"
    return json.loads(html.unescape(m.group(1)))


def rows(path, step=None):
    with open(path) as f:
        return {(int(r["world"]), int(r["body"])): r for r in csv.DictReader(f)
                if step is None or int(r["step"]) == step}


def check_bodies(p, expected):
    replay_worlds = set(WORLDS)
    want = {k: r for k, r in expected.items() if k[0] in replay_worlds and r["state"] != "removed"}
    got = {(b["world"], b["body"]): b for b in p["bodies"]}
    assert set(got) == set(want), "the scene graph holds exactly the recorded worlds' bodies"
    for k, r in want.items():
        b = got[k]
        # float32 values, written with 9 digits (state.csv) and as float32 bits (replay.bin): equal to rounding
        assert np.allclose(b["pos"], [float(r[c]) for c in ("x", "y", "z")], rtol=0, atol=1e-6), (k, b, r)
        q = np.array([float(r[c]) for c in ("qx", "qy", "qz", "qw")])
        assert abs(abs(np.dot(b["quat"], q)) - 1.0) < 1e-5, (k, b["quat"], q)
        assert np.allclose(b["color"], COLORS[r["state"]], atol=1e-6), (k, b["color"], r["state"])


def test_page_scene_graph_matches_the_run(out):
    replay = json.loads((out / "replay.json").read_text())
    frames = STEPS // EVERY + 1
    assert replay["frames"] == frames and replay["worlds"] == WORLDS
    assert replay["steps"] == [EVERY * f for f in range(frames)]
    assert (out / "replay.bin").stat().st_size == frames * replay["frame_bytes"]
    last = probe(out, "last")
    assert last["webgl"] and last["frame"] == frames - 1 and last["worlds"] == WORLDS
    shapes = sum(len(b["shapes"]) for b in replay["bodies"])
    kinds = {s["kind"] for b in replay["bodies"] for s in b["shapes"]}
    assert kinds == {"box", "ball", "cylinder", "capsule", "wedge", "corner_wedge"}
    assert last["meshes"] == len(WORLDS) * shapes, "one mesh per shape per recorded world"
    assert len(last["bodies"]) == len(WORLDS) * replay["bodies_per_world"]
    check_bodies(last, rows(out / "state.csv"))
    middle = probe(out, 5)
    assert middle["frame"] == 5 and abs(middle["time"] - 5 * EVERY / 60) < 1e-6
    check_bodies(middle, rows(out / "bodies.csv", step=5 * EVERY))
    states = {r["state"] for r in rows(out / "bodies.csv", step=5 * EVERY).values()}
    assert "awake" in states or "checking" in states, "the middle frame shows moving bodies"


def test_click_on_a_body_shows_its_name_state_and_velocity(out):
    """A click at the capsule's centre on screen (world 2 shown alone, frame 3: falling) names it and gives
    its state, position and velocity at that frame, as bodies.csv has them (to the 3 decimals shown)."""
    r = browser(out, "--dump-dom", f"file://{out / 'view.html'}#world=1&frame=3&click=4&probe")
    p = json.loads(html.unescape(re.search(r'<pre id="probe">(.*?)</pre>', r.stdout, re.S).group(1)))
    row = rows(out / "bodies.csv", step=3 * EVERY)[(2, 4)]
    assert float(row["vz"]) < -1.0, "it falls at that frame"
    assert row["name"] == "capsule"
    lines = p["info"].splitlines()
    assert lines[0] == "capsule (body 4, dynamic) in world 2", p["info"]
    assert lines[1].split() == ["state", row["state"]]
    for line, cols in ((lines[2], ("x", "y", "z")), (lines[3], ("vx", "vy", "vz"))):
        shown = [float(t) for t in re.search(r"\((.*?)\)", line).group(1).split(",")]
        assert np.allclose(shown, [float(row[c]) for c in cols], atol=5.1e-4), (line, row)
    assert float(re.search(r"\|v\| = (\S+)", p["info"]).group(1)) == pytest.approx(
        np.linalg.norm([float(row[c]) for c in ("vx", "vy", "vz")]), abs=5.1e-4)


def decode_png(path):
    """RGB pixels of a PNG, through ffmpeg (no imaging library in Debian's python3 here)."""
    r = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0", str(path)],
                       capture_output=True, text=True, check=True)
    w, h = map(int, r.stdout.strip().split(","))
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", str(path), "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
                         capture_output=True, check=True).stdout
    return np.frombuffer(raw, np.uint8).reshape(h, w, 3)


def test_screenshot_shows_the_scene(out):
    shot = out / "shot.png"
    r = browser(out, "--window-size=1000,700", f"--screenshot={shot}", f"file://{out / 'view.html'}#frame=0")
    assert shot.exists(), r.stderr[-2000:]
    px = decode_png(shot).astype(np.int32)
    assert px.shape == (700, 1000, 3)
    assert px.std() > 20, "not a blank page"
    view = px[:540]  # the 3D view above the timeline bar
    red = (view[..., 0] > 110) & (view[..., 1] < 80) & (view[..., 2] < 80)
    slate = (abs(view[..., 0] - view[..., 2]) < 25) & (view[..., 2] > 40) & (view[..., 2] < 110)
    assert red.sum() > 200, "at frame 0 every dynamic body is awake: red pixels"
    assert slate.sum() > 5000, "the static ground in slate"


def ffprobe(path):
    r = run("ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
            "stream=nb_read_frames,width,height,r_frame_rate", "-of", "json", path)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)["streams"][0]


def test_video_decodes_with_its_frames_and_size(tmp_path):
    video = tmp_path / "run.mp4"
    r = run(CLI, "run", SCENE, "--worlds", 6, "--steps", 40, "--record-every", 4, "--video", video,
            "--video-worlds", 4, "--video-size", "320x240", "--quiet", "--out", tmp_path)
    assert r.returncode == 0, r.stderr
    s = ffprobe(video)
    assert (s["width"], s["height"]) == (320, 240)
    assert int(s["nb_read_frames"]) == 40 // 4 + 1, "a frame at step 0 and every 4 steps"
    assert s["r_frame_rate"] == "15/1", "60 steps/s over 4 steps a frame"


def test_video_without_ffmpeg_is_a_clear_error(tmp_path):
    bare = tmp_path / "bin"
    bare.mkdir()
    r = run(CLI, "run", SCENE, "--steps", 5, "--video", tmp_path / "v.mp4", "--out", tmp_path / "out",
            env={**os.environ, "PATH": str(bare)})
    assert r.returncode == 1 and "ffmpeg was not found on PATH" in r.stderr, r.stderr
    assert not (tmp_path / "out").exists(), "nothing is written when the video cannot be made"


def test_view_and_recording_errors(tmp_path):
    r = run(CLI, "view", tmp_path)
    assert r.returncode == 1 and "replay.json" in r.stderr and "--record-every" in r.stderr, r.stderr
    r = run(CLI, "run", SCENE, "--worlds", 2, "--record-worlds", "0,5", "--out", tmp_path / "o")
    assert r.returncode == 2 and "--record-worlds \"0,5\"" in r.stderr and "0 to 1" in r.stderr, r.stderr
    assert not (tmp_path / "o").exists()
    r = run(CLI, "run", SCENE, "--steps", 6, "--record-every", 2, "--quiet", "--out", tmp_path / "p")
    assert r.returncode == 0, r.stderr
    replay = json.loads((tmp_path / "p" / "replay.json").read_text())
    assert replay["steps"] == [0, 2, 4, 6] and replay["worlds"] == [0]
    r = run(CLI, "run", SCENE, "--steps", 7, "--record-worlds", "0", "--quiet", "--out", tmp_path / "q")
    replay = json.loads((tmp_path / "q" / "replay.json").read_text())
    assert r.returncode == 0 and replay["every"] == 2, "default: round(1 / (30 dt)) steps at dt = 1/60 s"
    assert replay["steps"] == [0, 2, 4, 6, 7], "every K steps and the last step"
    data = (tmp_path / "p" / "replay.bin").read_bytes()
    (tmp_path / "p" / "replay.bin").write_bytes(data[:-4])
    r = run(CLI, "view", tmp_path / "p")
    assert r.returncode == 1 and f"has {len(data) - 4} bytes" in r.stderr, r.stderr
    assert not (tmp_path / "p" / "view.html").exists()


def test_convex_shape_is_drawn_as_its_hull(tmp_path):
    """A `convex` shape (docs/outputs.md: `vertices` in the shape frame) becomes the hull of its
    vertices. No scene makes one yet, so a recorded box is turned into a tetrahedron (4 corners of
    its box) plus an inner point that the hull must leave out: 4 triangles."""
    r = run(CLI, "run", SCENE, "--steps", 6, "--record-every", 3, "--quiet", "--out", tmp_path)
    assert r.returncode == 0, r.stderr
    replay = json.loads((tmp_path / "replay.json").read_text())
    box = replay["bodies"][1]["shapes"][0]
    assert box["kind"] == "box"
    hx, hy, hz = (0.5 * s for s in box["size"])
    tetra = [[-hx, -hy, -hz], [hx, -hy, -hz], [-hx, hy, -hz], [-hx, -hy, hz]]
    box.update(kind="convex", vertices=tetra + [[-0.5 * hx, -0.5 * hy, -0.5 * hz]])
    (tmp_path / "replay.json").write_text(json.dumps(replay))
    r = run(CLI, "view", tmp_path)
    assert r.returncode == 0, r.stderr
    p = probe(tmp_path, "last")
    got = {(b["world"], b["body"]): b for b in p["bodies"]}
    assert got[(0, 1)]["triangles"] == 4, "the hull of a tetrahedron and a point inside it"
    assert got[(0, 2)]["triangles"] > 12, "the ball beside it is a sphere of many triangles"
