"""`validate` against the matroid semi-bandits (OMM, CTS, DPUCB-MAT, DPTS-MAT).

A semi-bandit candidate is a mechanism with ``K`` base arms, ``feedback = "semi"`` and
``sample(table, n, seed)`` returning (n, T, k) bases. The control here is :class:`PlainOMM`, a
single-run OMM written from Kveton et al. (UAI 2014), Algorithm 2, with the matroid's own
independence test as its only shared piece.

Kinds: exact (regret and pull counts of hand-made bases), smoke (bad input), statistical (fixed
seeds; each test states its failure probability and the rate it guards).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpbandits.audit.mechanism import RegistryMechanism
from dpbandits.cli import main
from dpbandits.errors import DPBanditsError
from dpbandits.reference.matroid import matroid_setting
from dpbandits.validate import validate as _validate
from dpbandits.validate.bases import Bases as _Bases


def validate(*args, **kwargs):
    """These tests judge the behaviour, privacy and regret verdicts; the stage that states their
    power (planted variants, alternatives tried) has its own tests (test_validate_power.py)."""
    return _validate(*args, explain=False, **kwargs)

ENVIRONMENT = matroid_setting("chandak-synthetic")
MATROID = ENVIRONMENT.matroid
SMALL = dict(horizon=200, runs=40, seed=0, audit_samples=0)


class PlainOMM:
    """OMM for one run: U_t(e) = w^_e + sqrt(alpha ln t / N_e), the greedy basis by decreasing
    U_t (ties to the lower index), w_0 observed first. Deterministic given the table, so the n
    runs of ``sample`` are one run repeated."""

    feedback = "semi"
    claimed = None

    def __init__(self, alpha: float = 2.0) -> None:
        self.K, self.alpha = MATROID.L, alpha
        self.label = f"plain OMM (alpha = {alpha:g})"

    def _basis(self, scores: np.ndarray) -> list[int]:
        basis: list[int] = []
        for e in sorted(range(self.K), key=lambda e: (-scores[e], e)):
            if len(basis) < MATROID.rank and MATROID.is_independent(basis + [e]):
                basis.append(e)
        return basis

    def sample(self, table, n: int, seed: int) -> np.ndarray:
        S, N = np.array(table.X0, dtype=float), np.ones(self.K)
        played = []
        for t in range(1, table.T + 1):
            basis = self._basis(S / N + np.sqrt(self.alpha * math.log(t) / N))
            S[basis] += table.X[t - 1, basis]
            N[basis] += 1.0
            played.append(basis)
        return np.repeat(np.asarray(played)[None], n, axis=0)


class Replay:
    """A semi-bandit mechanism that plays the given (T, k) super arms in every run."""

    feedback, label, claimed = "semi", "replay", None

    def __init__(self, arms, K: int = MATROID.L) -> None:
        self.arms, self.K = np.asarray(arms), K

    def sample(self, table, n: int, seed: int) -> np.ndarray:
        return np.repeat(self.arms[None, :table.T], n, axis=0)


@pytest.mark.exact
def test_regret_and_pulls_of_hand_made_bases():
    """Table 2 of Chandak, Hu & Hegde: f(A*) = 0.8 + 0.75 + 0.6 = 2.15 at A* = {e1, e2, e3};
    {e4, e5, e6} is worth 0.2 + 0.3 + 0.4 = 0.9, a regret of 1.25 per round."""
    problem = _Bases(ENVIRONMENT)
    bases = np.array([[[0, 1, 2], [3, 4, 5], [3, 4, 5]]])
    assert np.allclose(problem.regret(bases), [[0.0, 1.25, 1.25]])
    pulls = problem.pulls(bases, np.array([1, 3]))
    assert pulls[0, 0].tolist() == [1, 1, 1, 0, 0, 0, 0]
    assert pulls[0, 1].tolist() == [1, 1, 1, 2, 2, 2, 0]
    assert problem.masks(bases[0, :1]).tolist() == [7.0]


@pytest.mark.statistical
def test_an_independent_omm_conforms_and_a_wrong_constant_differs():
    """A faithful OMM is called `differs` with probability <= alpha = 0.05 (Holm over every
    comparison; its runs are deterministic given the table, so the fixed-table comparisons are
    exact ties). With alpha = 0.5 in the radius, every fixed-table run plays another super arm
    in round 7 (Cramér's V = 1, p = 4e-19 at these 40 runs), so missing it has negligible
    probability."""
    faithful = validate(PlainOMM(), "omm", **SMALL)
    assert faithful.behaviour == "conforms", faithful.summary()
    assert faithful.setup.K == 7 and faithful.setup.super_arm_size == 3
    quantities = {c.quantity for c in faithful.comparisons}
    assert {"super arm", "regret", "pulls of base arm 6"} <= quantities
    assert "semi-bandit: every round a super arm" in faithful.summary()
    planted = validate(PlainOMM(alpha=0.5), "omm", **SMALL)
    assert planted.behaviour == "differs"
    assert any(c.rejected and c.kind == "outcome" for c in planted.comparisons)
    super_arms = [c for c in planted.rejected if c.quantity == "super arm"]
    assert super_arms and "modal super arm: candidate {" in super_arms[0].describe()


@pytest.mark.statistical
def test_the_reference_as_candidate_conforms():
    """DPUCB-MAT's reference against itself (independent seeds): a false `differs` has
    probability <= alpha = 0.05 (Holm, up to Mann-Whitney's normal approximation)."""
    candidate = RegistryMechanism("dpucb-mat", MATROID.L, 1.0, None, {"matroid": MATROID},
                                  T=SMALL["horizon"], backend="reference")
    result = validate(candidate, "dpucb-mat", epsilon=1.0, **SMALL)
    assert result.behaviour == "conforms", result.summary()
    assert result.privacy == "not audited" and result.regret == "no bound available"
    assert "needs gaps" in result.regret_note


@pytest.mark.statistical
def test_a_non_private_candidate_is_a_privacy_violation():
    """OMM claiming DPUCB-MAT's eps = 1: its first basis is a function of row 0, so the audit's
    row-0 pairs separate the two tables in every run (4.9 on 500 test runs per side at this
    seed). The Clopper-Pearson bound is below the true loss (infinite) with probability >= 95%,
    and an event that holds in every run on one table and in none on the other puts it above 1
    whatever the draw: this test cannot fail by chance."""
    result = validate(PlainOMM(), "dpucb-mat", epsilon=1.0, horizon=100, runs=20, seed=0,
                      audit_samples=500)
    assert result.privacy == "violation", result.summary()
    assert result.audit.epsilon_lower_bound > 1.0
    assert result.audit.pair["D0"] is not None and result.exit_status == 1


@pytest.mark.smoke
@pytest.mark.parametrize("arms, message", [
    (np.tile([0, 1, 6], (SMALL["horizon"], 1)), "is not a basis"),      # e7 is a loop
    (np.tile([0, 5, 2], (SMALL["horizon"], 1)), "is not a basis"),      # e1, e6 are parallel
    (np.tile([0, 1, 7], (SMALL["horizon"], 1)), "in 0..6"),
    (np.tile([0, 1], (SMALL["horizon"], 1)), "shape"),
])
def test_a_candidate_that_plays_no_basis_is_bad_input(arms, message):
    with pytest.raises(DPBanditsError, match=message):
        validate(Replay(arms), "omm", **SMALL)


@pytest.mark.smoke
def test_what_a_semi_bandit_candidate_must_be():
    with pytest.raises(DPBanditsError, match=r"no act\(\) method; a candidate needs act\(t\) -> basis"):
        validate(PlainOMM, "omm", **SMALL)
    with pytest.raises(DPBanditsError, match="base arms but the setting has 7"):
        validate(Replay(np.zeros((200, 3), int), K=5), "omm", **SMALL)
    with pytest.raises(DPBanditsError, match="its own matroid"):
        validate(PlainOMM(), "omm", params={"matroid": matroid_setting(
            "chandak-movielens-standin").matroid}, **SMALL)
    with pytest.raises(DPBanditsError, match="unknown matroid setting"):
        validate(PlainOMM(), "omm", setting="hu2021-setting2", **SMALL)


@pytest.mark.smoke
def test_means_give_a_uniform_matroid_of_rank_one_by_default():
    """With Bernoulli means and no matroid, the policies' own default matroid (rank 1) is used:
    a super arm is one base arm."""
    result = validate(Replay(np.zeros((50, 1), int), K=3), "omm", means=[0.9, 0.5, 0.1],
                      horizon=50, runs=20, seed=0, audit_samples=0)
    assert result.setup.super_arm_size == 1 and "Uniform" in result.setup.matroid


@pytest.mark.smoke
def test_the_line_protocol_has_no_message_for_a_basis(capsys, tmp_path):
    status = main(["validate", "--command", "true", "--against", "dpucb-mat", "--epsilon", "1",
                   "--out", str(tmp_path), "--no-progress"])
    error = capsys.readouterr().err
    assert status == 2 and error.count("\n") == 1 and "--python" in error, error
    assert not list(tmp_path.iterdir())


@pytest.mark.exact
def test_pulls_at_the_checkpoints_are_the_running_counts_of_the_base_arms():
    """Bases.pulls counts the stretches between checkpoints: the running count of every round
    (what it replaced) read at the checkpoints gives the same integers, on random bases."""
    problem = _Bases(ENVIRONMENT)
    rng = np.random.default_rng(7)
    L = problem.K
    bases = np.stack([np.stack([np.sort(rng.choice(L, 3, replace=False)) for _ in range(40)])
                      for _ in range(6)])
    for points in ([1], [3, 17, 40], [40], [1, 2, 39, 40]):
        running = np.cumsum(problem.inclusion(bases), axis=1, dtype=np.int32)
        np.testing.assert_array_equal(problem.pulls(bases, np.array(points)),
                                      running[:, np.array(points) - 1])
