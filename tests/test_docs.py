"""The documentation: the site builds with --strict, and every Python block in it runs.

Kinds: smoke (the build; each code block executes without error; blocks assert their own numbers).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted((ROOT / "docs").rglob("*.md"))
BLOCKS = [pytest.param(block, id=f"{page.relative_to(ROOT / 'docs')}#{i}")
          for page in PAGES
          for i, block in enumerate(re.findall(r"```python\n(.*?)```", page.read_text(), flags=re.S))]


@pytest.mark.smoke
def test_site_builds_strictly(tmp_path):
    """A broken link, a missing page or an unresolvable API reference fails the build."""
    completed = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                                str(tmp_path / "site")], cwd=ROOT, capture_output=True, text=True,
                               env={"NO_MKDOCS_2_WARNING": "1", "PATH": "", "HOME": str(tmp_path)})
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert (tmp_path / "site" / "errata" / "index.html").exists()


@pytest.mark.smoke
@pytest.mark.parametrize("block", BLOCKS)
def test_python_blocks_run(block, monkeypatch):
    """Blocks run from the repository root, as a reader following the docs in a clone would."""
    monkeypatch.chdir(ROOT)
    exec(compile(block, "docs", "exec"), {})
