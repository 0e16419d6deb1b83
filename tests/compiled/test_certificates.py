"""Statistical: every kernel conforms to its reference under ``validate``; planted bugs differ.

Each certificate runs ``validate`` with the compiled kernel as the candidate and the reference
algorithm (reference backend) as ALGO, at the published size (T = 500, or where the reference's
actions do not depend on the rewards by then twice the horizon from which they do; 100 runs per sample, on
the fixed and the fresh samples; the matroid kernels on the synthetic matroid of Chandak, Hu &
Hegde, Table 2). The family-wise level is split over all certificates
(Bonferroni, 0.05 in all), so with every kernel exact the chance that this fixed seed shows any
false 'differs' is at most 5%; the planted deviations must be found at the same level. Each row
must also equal the published one in ``docs/data/kernel-certificates.json`` (which the docs
pages show), so the published certificates cannot go stale.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from dpbandits.validate.core import ACTIONS, PATH_ONLY
from dpbandits.validate.certify import (CERTIFICATE_SIZE, certificate_alpha, certificate_row,
                                        certified, certify, planted)

pytestmark = pytest.mark.statistical

CERTIFIED = certified()
ALPHA = certificate_alpha()
PUBLISHED = Path(__file__).resolve().parents[2] / "docs" / "data" / "kernel-certificates.json"


def _published(name, variant):
    rows = [r for r in json.loads(PUBLISHED.read_text())
            if r["algorithm"] == name and r["variant"] == variant]
    return rows[0] if rows else None


@pytest.mark.parametrize("name, variant", CERTIFIED, ids=[f"{n}-{v or 'default'}" for n, v in CERTIFIED])
def test_kernel_conforms_to_its_reference(name, variant):
    result = certify(name, variant=variant, alpha=ALPHA, **CERTIFICATE_SIZE)
    assert result.behaviour == "conforms", result.summary()
    assert all(c.detectable < 0.5 for c in result.comparisons if c.quantity not in ACTIONS)
    row = json.loads(json.dumps(certificate_row(result)))
    assert row == _published(name, variant), \
        "docs/data/kernel-certificates.json is stale: python -m dpbandits.validate.certify docs/data/kernel-certificates.json"


def test_every_published_certificate_is_recomputed():
    published = {(r["algorithm"], r["variant"]) for r in json.loads(PUBLISHED.read_text())}
    assert published == set(CERTIFIED)


@pytest.mark.parametrize("name, overrides, verdict", [
    # noise and radius at 4 times the epsilon: the outcomes differ
    ("anytime-lazy-ucb", {"epsilon": 4.0}, "differs"),
    # random ties (the first K rounds become a random order): only the path differs
    ("ucb1", {"random_ties": 1}, PATH_ONLY),
    # a matroid kernel (on the synthetic matroid of Chandak, Hu & Hegde, Table 2) with
    # eps0 = eps / K four times too large: its epoch noise Lap(1 / eps0) four times too small
    # and the index's privacy term shrunk alike, so its bases and regret differ
    ("dpucb-mat", {"epsilon0": 4.0 / 3.0}, "differs"),
])
def test_planted_deviation_is_caught(name, overrides, verdict):
    candidate = planted(name, overrides, horizon=CERTIFICATE_SIZE["horizon"])
    result = certify(name, candidate=candidate, alpha=ALPHA, **CERTIFICATE_SIZE)
    assert result.behaviour == verdict, result.summary()


@pytest.mark.smoke
def test_overrides_keep_the_kernel_state_in_bounds():
    """A flag override gets the scratch it needs (OMM's random tie-break once wrote tie keys into
    an unallocated array); a field of another shape or an unknown field is refused."""
    from dpbandits.errors import DPBanditsError
    from dpbandits.reference.environments import Table
    from dpbandits.reference.matroid.data import matroid_setting

    setting = matroid_setting("chandak-synthetic")
    table = Table(np.zeros((20, setting.K)), X0=np.zeros(setting.K))
    mechanism = planted("omm", {"random_ties": 1}, horizon=20, params={"matroid": setting.matroid})
    bases = mechanism.sample(table, 50, 0)
    assert bases.shape[:2] == (50, 20)
    for overrides in ({"keys": np.zeros((1, 1))}, {"no_such_field": 1.0}):
        wrong = planted("omm", overrides, horizon=20, params={"matroid": setting.matroid})
        with pytest.raises(DPBanditsError, match="kernel override"):
            wrong.sample(table, 5, 0)
