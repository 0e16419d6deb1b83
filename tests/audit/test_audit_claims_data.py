"""``docs/data/audit-claims.json`` (the output of ``dpbandits audit --all --out docs/data``, which
the algorithm pages render) still describes the code.

Kinds: exact. Regenerating the file takes the full audit, so the test recomputes what is cheap
and deterministic (which mechanisms are audited, each one's claim, relation and known status, the
candidate pairs at the audited size, the sample sizes) and checks the statistical fields by
structure (a bound, a verdict consistent with it). When it fails, rerun the command above.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from dpbandits.audit.mechanism import RegistryMechanism
from dpbandits.audit.pairs import DEFAULT_ARMS, candidate_pairs, known_pairs
from dpbandits.audit.design import designed_horizon, designed_pairs
from dpbandits.audit.design import DESIGNED_ARMS
from dpbandits.audit.runner import AUDIT_PRESETS, DEFAULT_HORIZON
from dpbandits.audit.toys import TOY_VARIANTS, ToyThreshold
from dpbandits.reference.registry import ALGORITHMS, get

DATA = Path(__file__).resolve().parents[2] / "docs" / "data" / "audit-claims.json"
ROWS = json.loads(DATA.read_text())
SAMPLES, EPSILON = 20_000, 1.0          # the defaults of ``audit --all``


def _audited() -> dict[str, tuple[RegistryMechanism, int, int, int]]:
    """Label -> (mechanism, K, T, samples) for every registered algorithm and variant."""
    out = {}
    for name in ALGORITHMS:
        preset = AUDIT_PRESETS.get(name, {})
        K = DESIGNED_ARMS.get(name) or DEFAULT_ARMS.get(name, 3)
        T = preset.get("T") or (designed_horizon(name, K, preset.get("epsilon", EPSILON))
                                if name in DESIGNED_ARMS else DEFAULT_HORIZON)
        for variant in get(name).variants:
            mechanism = RegistryMechanism(name, K, preset.get("epsilon", EPSILON), variant.name,
                                          dict(preset.get("params", {})), T=T)
            out[mechanism.label] = (mechanism, K, T, preset.get("samples", SAMPLES))
    return out


AUDITED = _audited()


@pytest.mark.exact
def test_every_algorithm_and_variant_is_in_the_table_and_nothing_else():
    controls = {ToyThreshold(v, EPSILON).label for v in TOY_VARIANTS}
    controls |= {"hybrid-counter[paper]", "hybrid-counter[chan]"}
    assert {r["mechanism"] for r in ROWS} == set(AUDITED) | controls


@pytest.mark.exact
@pytest.mark.parametrize("row", [r for r in ROWS if r["mechanism"] in AUDITED],
                         ids=lambda r: r["mechanism"])
def test_claims_and_pairs_match_the_code(row):
    mechanism, K, T, samples = AUDITED[row["mechanism"]]
    claimed = mechanism.claimed
    assert row["claimed_epsilon"] == (None if claimed is None else claimed.epsilon)
    assert row["claimed_delta"] == (0.0 if claimed is None else claimed.delta)
    assert row["relation"] == ("row" if claimed is None else str(claimed.relation))
    assert row["claim_status"] == getattr(getattr(mechanism, "claim", None), "status", "")
    assert row["n_test"] == samples and row["alpha"] == 0.05
    policy = getattr(mechanism, "_policy", None)
    designed = designed_pairs(mechanism.name, K, mechanism.epsilon or 1.0, mechanism.variant, T)
    pairs = designed + known_pairs(mechanism.name, K, T) if designed else known_pairs(
        mechanism.name, K, T) + candidate_pairs(
        K, T, boundaries=mechanism.epoch_boundaries(T),
        row_zero=bool(getattr(policy, "observes_round_zero", False)),
        **({"relation": claimed.relation} if claimed is not None else {}))
    chosen = {p.description: p.to_dict() for p in pairs}
    assert row["pair"]["description"] in chosen, row["pair"]["description"]
    assert row["pair"] == json.loads(json.dumps(chosen[row["pair"]["description"]]))


@pytest.mark.exact
@pytest.mark.parametrize("row", ROWS, ids=lambda r: r["mechanism"])
def test_statistical_fields_are_consistent(row):
    bound = float(row["epsilon_lower_bound"])
    assert bound >= 0 or math.isinf(bound)
    if row["claimed_epsilon"] is None:
        assert row["verdict"] == "non-private"
    elif bound > row["claimed_epsilon"]:
        assert row["verdict"] == "violation"
    else:
        assert row["verdict"] != "violation"
    counts = row["counts"]
    assert 0 <= counts["in_S_D0"] <= counts["n_D0"] == row["n_test"]
    assert 0 <= counts["in_S_D1"] <= counts["n_D1"] == row["n_test"]
