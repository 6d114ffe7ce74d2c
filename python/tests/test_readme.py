"""The README's Python example, as written, from a directory outside the
repository: it runs and prints what the README says it printed."""

import os
import re
import subprocess
import sys

from conftest import ROOT


def test_readme_example(tmp_path):
    text = open(os.path.join(ROOT, "README.md")).read()
    after = text.split("<!-- python-example -->", 1)[1]
    code = re.search(r"```python\n(.*?)```", after, re.S).group(1)
    assert len(code.strip().splitlines()) <= 10
    said = re.search(r"It printed `([^`]*)`", after).group(1)
    p = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == said


def test_readme_recommender(cli, tmp_path):
    """The README's recommender example, after the generate it names."""
    from conftest import run
    text = open(os.path.join(ROOT, "README.md")).read()
    after = text.split("<!-- recommender-example -->", 1)[1]
    code = re.search(r"```python\n(.*?)```", after, re.S).group(1)
    assert len(code.strip().splitlines()) <= 5
    said = re.search(r"It printed `([^`]*)`", after).group(1)
    run(cli, "generate", "--problem", "ratings", "--out", tmp_path / "R")
    p = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == said
