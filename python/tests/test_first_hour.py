"""What a newcomer meets first: the README's minimal scene, the package's
extras, the public exception classes, scene-read limits, the CLI's option
typos and help."""
import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import torpor
from conftest import ROOT

CLI = os.environ.get("TORPOR_CLI", str(ROOT / "build" / "torpor"))
needs_cli = pytest.mark.skipif(not os.path.exists(CLI), reason="the torpor command is not built")


def readme_scene() -> str:
    text = (ROOT / "README.md").read_text()
    m = re.search(r"A minimal tower:\s*```json\n(.*?)```", text, re.S)
    assert m, "README has lost its minimal scene"
    return m.group(1)


def test_readme_minimal_scene_event_fires_in_the_default_run():
    """`torpor run` lasts 2 s by default; the event's 3 N s on the 1 kg top cube
    (3 m/s) must act in that time: sliding on the lower cube against friction
    0.6 (the default) it covers v^2 / (2 mu g) = 0.76 m before friction alone
    could stop it, and it falls off the 1 m cube's edge sooner, so it ends
    more than 0.5 m away along x."""
    scene = json.loads(readme_scene())
    event = scene["events"][0]
    dt = 1.0 / 60.0
    model = torpor.Model.from_json(readme_scene(), "README")
    b = torpor.Batch(model, worlds=1)
    b.step(round(2.0 / dt))
    top = model.find_body(event["body"])
    x = float(b.state().pos[0, top, 0])
    assert x > 0.5, f"the top cube is at x = {x:.3f} m after the default 2 s: the event at {event['time']} s did not act"


def test_gym_extra_is_declared():
    text = (ROOT / "python" / "pyproject.toml").read_text()
    assert re.search(r'^gym = \["gymnasium', text, re.M)
    assert 'pip install "./python[gym]"' in (ROOT / "README.md").read_text()


def test_exception_classes_are_public_and_named_as_imported(tmp_path):
    for name in ("TorporError", "InvalidArgumentError", "SceneError", "FileError", "OutOfMemoryError",
                 "CapacityError", "BackendError"):
        cls = getattr(torpor, name)
        assert name in torpor.__all__ and cls.__module__ == "torpor", name
        assert issubclass(cls, torpor.TorporError)
    with pytest.raises(torpor.FileError) as e:
        torpor.Model.load(tmp_path / "missing.json")
    assert isinstance(e.value, OSError) and e.value.status == 3
    assert type(e.value).__module__ + "." + type(e.value).__qualname__ == "torpor.FileError"
    assert not any(n.startswith("_") and n.endswith("Error") for n in vars(torpor.core)), "a private error class"


def test_from_json_refuses_a_nul_with_its_offset():
    good = '{"bodies": [{"size": [1, 1, 1]}]}'
    torpor.Model.from_json(good)
    with pytest.raises(torpor.SceneError, match=r"s\.json:1:34: a NUL byte at offset 33"):
        torpor.Model.from_json(good + "\0garbage", "s.json")
    with pytest.raises(torpor.SceneError, match=r"offset 9"):
        torpor.Model.from_json('{"bodies"\0: []}')


def test_scene_reads_past_the_size_limit_are_refused(tmp_path):
    limit = 64 * 1024 * 1024
    assert torpor.core.lib.TP_MAX_SCENE_BYTES == limit
    with pytest.raises(torpor.CapacityError, match="more than 67108864 bytes"):
        torpor.Model.from_json('{"bodies": [{"size": [1, 1, 1]}]}' + " " * limit)


@needs_cli
def test_cli_run_refuses_dev_zero_promptly():
    out = subprocess.run([CLI, "run", "/dev/zero", "--quiet"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    assert "/dev/zero: the file has more than 67108864 bytes (64 MiB, TP_MAX_SCENE_BYTES)" in out.stderr


@needs_cli
@pytest.mark.parametrize("args, hint", [(["run", "x.json", "--world", "4"], "--worlds"),
                                        (["run", "x.json", "--quite"], "--quiet"),
                                        (["bench", "--world", "4"], "--worlds")])
def test_cli_option_typos_get_a_suggestion(args, hint):
    out = subprocess.run([CLI, *args], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    assert f"unknown option {args[-2] if args[-1].isdigit() else args[-1]} (did you mean {hint}?)" in out.stderr


@needs_cli
def test_cli_run_help_shows_defaults():
    out = subprocess.run([CLI, "run", "--help"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0
    for line in ("--worlds N          replicated worlds (default 1)", "--seconds T         simulated seconds (default 2)",
                 "(default cpu)", "(default out)", "--every K", "(default auto)"):
        assert line in out.stdout, line
