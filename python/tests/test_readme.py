"""The README's Python example runs as written (from the repository root)."""
import os
import re
import subprocess
import sys

from conftest import ROOT


def test_readme_example_runs():
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks, "README has no Python example"
    code = blocks[0]
    assert len(code.strip().splitlines()) <= 10, "the README promises ten lines"
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "towers fell" in out.stdout
