"""How the assertions for a user's test suite fail, as pytest prints them: the caller's line and
the message, not the code of ``dpbandits.testing`` (``__tracebackhide__``).

Kind: statistical (seed 0). The candidate is the non-private UCB1 audited against DP-UCB's claim
of epsilon = 1 on DP-UCB's designed pair: its first action after the pair's round is fixed by the
reward there, so the event holds in every run on one table and in none on the other, and the
Clopper-Pearson bound is about 4 at 200 runs per side; a candidate that kept the claim would fail
with probability at most alpha = 0.05.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import dpbandits
from dpbandits.testing import FAILURE_LINES

SOURCE = str(Path(dpbandits.__file__).resolve().parents[1])

USER_TEST = '''
from dpbandits.audit.mechanism import RegistryMechanism
from dpbandits.testing import assert_private


def test_a_non_private_ucb1_keeps_dp_ucbs_claim():
    assert_private(RegistryMechanism("ucb1", 2), against="dp-ucb", epsilon=1, samples=200)
'''


def _failure_block(output: str) -> list[str]:
    """The lines pytest prints for one failure: its header to the location line."""
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("____"))
    end = next(i for i, line in enumerate(lines) if i > start and line.endswith("AssertionError"))
    return lines[start:end + 1]


@pytest.mark.statistical
def test_assert_private_fails_in_at_most_ten_lines_showing_the_callers_line(tmp_path):
    (tmp_path / "test_user.py").write_text(USER_TEST)
    env = {**os.environ, "PYTHONPATH": SOURCE + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "test_user.py"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 1, done.stdout + done.stderr
    block = _failure_block(done.stdout)
    assert len(block) <= FAILURE_LINES, "\n".join(block)
    text = "\n".join(block)
    assert "privacy VIOLATION of dp-ucb's claim" in text
    assert "probability at most alpha = 0.05" in text
    assert "def assert_private" not in text and "audit_against(" not in text
