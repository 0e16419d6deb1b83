"""Validate's privacy stage and ``dpbandits audit --against`` audit at the same default size.

Kinds: exact.
"""

from __future__ import annotations

import pytest

from dpbandits.audit.against import AGAINST_SAMPLES
from dpbandits.cli.audit import SAMPLES
from dpbandits.validate.defaults import DEFAULT_AUDIT_SAMPLES


@pytest.mark.exact
def test_the_audit_against_algo_has_one_default_size():
    assert DEFAULT_AUDIT_SAMPLES == AGAINST_SAMPLES == SAMPLES["against"] == 20_000
