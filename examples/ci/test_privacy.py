"""What a researcher adds to their own pytest suite: a privacy check and a conformance check.

Run with ``python -m pytest examples/ci/test_privacy.py`` from the project's root. The planted
bug (``ExactFirstDPSE``) is expected to fail ``assert_private``; the faithful ``DPSE`` passes.
"""

import pytest

from dpbandits.testing import assert_private

from dp_se import DPSE, ExactFirstDPSE


def test_dp_se_keeps_its_privacy_claim():
    assert_private(DPSE, against="dp-se", epsilon=1, samples=1000)


def test_the_planted_bug_is_caught():
    with pytest.raises(AssertionError, match="privacy VIOLATION"):
        assert_private(ExactFirstDPSE, against="dp-se", epsilon=1, samples=1000)
