"""The README's promises.

Kinds: smoke (every Python block runs), exact (CI runs the README's test command).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


@pytest.mark.smoke
@pytest.mark.parametrize("block", re.findall(r"```python\n(.*?)```", README, flags=re.S))
def test_python_blocks_run(block):
    exec(compile(block, "README.md", "exec"), {})


@pytest.mark.exact
def test_ci_runs_the_readme_test_command():
    commands = re.findall(r"```bash\n(.*?)```", README, flags=re.S)
    test_command = next(c.strip() for c in commands if "pytest" in c)
    assert test_command in (ROOT / ".ci" / "run").read_text()
