"""The README's Python examples run as written (from the repository root)."""
import os
import re
import subprocess
import sys

from conftest import ROOT


def readme_blocks() -> list[str]:
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    assert len(blocks) >= 2, "README has lost a Python example"
    return blocks


def run(code: str) -> str:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_readme_example_runs():
    code = readme_blocks()[0]
    assert len(code.strip().splitlines()) <= 10, "the README promises ten lines"
    assert "towers fell" in run(code)


def test_readme_joint_example_runs():
    """The cart pushed with 5 N for one step (1/60 s) gains 5 dt / m_eff, m_eff
    between the 1 kg cart and cart + pole 1.1 kg; the one not pushed only feels
    the pole start to fall (test_joints.py derives these bounds)."""
    out = run(readme_blocks()[1])
    m = re.search(r"cart velocity (\S+) m/s pushed, (\S+) m/s not", out)
    assert m, out
    pushed, rest = float(m.group(1)), float(m.group(2))
    assert 5.0 / 60 / 1.1 - 0.005 < pushed - rest < 5.0 / 60 + 0.005 and abs(rest) < 0.005, out
