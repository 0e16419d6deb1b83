"""The accountant's bound at the user's size, by the per-arm schedule
(docs/accountant.md#proof-at-your-size): a per-arm bound, not a proof (its lemma is checked on
the sequences traced, not derived for every sequence).

At a T the enumeration cannot reach, ``traced_upper`` runs a few action sequences with every
reward-derived value carrying its linear form over the cells, checks the per-arm schedule
lemma on every enumerated sequence at the small size and on the sequences traced at size T,
and reports the per-arm bound only when that and the checks of the code hold at both sizes.
Planted breaks that act only at a large size (a noise scale halved from round 5000, by a branch
and by arithmetic with no branch; a leak once an arm has more than 3000 pulls, both ways) must
not give the per-arm bound at T = 10^4 (an estimate naming the failure instead); a harmless
rewrite keeps the per-arm bound and its value; neither is ever called a proof; the bound equals
the hand-derived per-arm cost of Anytime-Lazy-UCB.

Kinds: exact (deterministic traces: fixed seeds; the linear forms are exact).
"""

from __future__ import annotations

import numpy as np
import pytest

from dpbandits.accountant import PER_ARM, PROOF, TooLargeToTrace, traced_upper
from dpbandits.accountant import size as sized
from dpbandits.reference.bandit.anytime_lazy_ucb import AnytimeLazyUCB
from dpbandits.reference.noise import decision, laplace, release

T_LARGE = 10_000


class _Lazy(AnytimeLazyUCB):
    """Anytime-Lazy-UCB with its epoch release's scale (``_scale``), its statistic
    (``_statistic``) and one added step (``_extra``) open to a planted change."""

    def _scale(self, t):
        return 1.0 / self.epsilon

    def _statistic(self, i, j):
        return self.Phi[i, j]

    def _extra(self, t, rows, actions):
        """A planted class's one added step of ``observe`` (nothing here)."""

    def observe(self, t, actions, feedback):
        x = self.check_observation(t, actions, feedback)
        rows = self._rows
        if t <= self.K:
            z = laplace(self.rng, 1.0 / self.epsilon, self.runs)
            self.mu_tilde[rows, actions] = release(x, z)
            return
        self.N[rows, actions] += 1
        self.Phi[rows, actions] += x
        self._extra(t, rows, actions)
        pulls, epoch = decision(self.N[rows, actions], self.r[rows, actions])
        full = pulls == np.left_shift(1, epoch + 1)
        if full.any():
            i, j = rows[full], actions[full]
            O = np.left_shift(1, self.r[i, j] + 1).astype(float)
            self.O[i, j] = O
            self.inv_O[i, j] = 1.0 / O
            self.sqrt_inv_O[i, j] = np.sqrt(1.0 / O)
            z = laplace(self.rng, self._scale(t), i.size)
            self.mu_tilde[i, j] = release(self._statistic(i, j), z) / O
            self.r[i, j] += 1
            self.N[i, j] = 0
            self.Phi[i, j] = 0.0


class HalvedByBranch(_Lazy):
    """The epoch release's noise scale halved from round 5000 on, by a branch."""

    def _scale(self, t):
        if t >= 5000:
            return 0.5 / self.epsilon
        return 1.0 / self.epsilon


class HalvedByArithmetic(_Lazy):
    """The same, by arithmetic with no branch (a Python bool in the scale)."""

    def _scale(self, t):
        return (1.0 / self.epsilon) / (1 + (t >= 5000))


class LeakByBranch(_Lazy):
    """Once an arm has more than 3000 pulls in its epoch, its index takes the raw epoch mean,
    by a branch."""

    def _extra(self, t, rows, actions):
        many = self.N[rows, actions] > 3000
        if many.any():
            i, j = rows[many], actions[many]
            self.mu_tilde[i, j] = self.Phi[i, j] / self.N[i, j]


class LeakByArithmetic(_Lazy):
    """The same, by arithmetic with no branch: a 0/1 weight on the raw mean."""

    def _extra(self, t, rows, actions):
        w = (self.N[rows, actions] > 3000).astype(float)
        raw = self.Phi[rows, actions] / np.maximum(self.N[rows, actions], 1)
        self.mu_tilde[rows, actions] = (1.0 - w) * self.mu_tilde[rows, actions] + w * raw


class Rewritten(_Lazy):
    """A harmless rewrite: the epoch sum released as twice its half plus nothing, the scale
    as a product."""

    def _statistic(self, i, j):
        half = self.Phi[i, j] * 0.5
        return half + half + 0.0 * self.Phi[i, j]

    def _scale(self, t):
        return 2.0 * (0.5 / self.epsilon)


def _bound(cls=None, T=T_LARGE):
    return traced_upper("anytime-lazy-ucb", K=2, T=T, policy_class=cls)


@pytest.fixture(scope="module")
def honest():
    return _bound()


def test_anytime_lazy_ucb_has_the_per_arm_bound_at_t_10_000_and_it_is_not_called_a_proof(honest):
    assert honest.status.startswith(PER_ARM) and not honest.proof and honest.status != PROOF
    assert "not derived from the code" in honest.status
    assert honest.epsilon == pytest.approx(1.0, abs=1e-12)
    assert honest.K == 2 and honest.T == T_LARGE
    assert "every table with entries in [0, 1]" in honest.scope
    assert "given the per-arm schedule" in honest.scope and "every noise draw" in honest.scope
    assert f"T = {T_LARGE}" in honest.scope
    assert not honest.findings


def test_the_bound_is_the_hand_derived_per_arm_cost():
    """Each reward enters one epoch sum, released once with Lap(1/eps): a cell costs 1 once its
    epoch is released (the first reward at once, then epochs of 2, 4, 8, ... pulls) and 0 in
    the epoch still open at T; the worst cell costs 1 = eps."""
    T = 3000
    sequences = sized.size_sequences(2, T, [(0, 1)])
    run = sized.symbolic_run("anytime-lazy-ucb", epsilon=1.0, K=2, T=T, variant=None, params={},
                             policy_class=None, sequences=sequences)
    assert not run.problems()
    hold = run.labels.index(sized.hold_label((0, 1), 0))
    pulls = np.flatnonzero(run.sequences[hold] == 0) + 1       # rounds of arm 0's stream
    expected = np.zeros(pulls.size)
    expected[0] = 1.0                                           # round 1: released at once
    done, size = 0, 2
    while done + size <= pulls.size - 1:                        # epochs after the start
        expected[1 + done:1 + done + size] = 1.0
        done += size
        size *= 2
    assert np.array_equal(run.cost[hold, pulls], expected)
    assert sized.bound(run)[0] == 1.0
    assert sized.lemma(run)[0] == "stream"


@pytest.mark.parametrize("cls", [HalvedByBranch, HalvedByArithmetic, LeakByBranch,
                                 LeakByArithmetic])
def test_a_break_that_acts_only_at_a_large_size_is_not_a_proof(cls):
    bound = _bound(cls)
    assert not bound.proof and bound.status != PROOF and not bound.status.startswith(PER_ARM)
    assert bound.findings
    if cls is HalvedByBranch:           # never ran at the small size: the branch is named
        assert any("branch never ran under tracing" in f and "test_accountant_size.py" in f
                   for f in bound.findings)
    if cls is HalvedByArithmetic:       # the lemma fails at size T, and the cost is 2
        assert any("per-arm schedule" in f and f"at T = {T_LARGE}" in f for f in bound.findings)
        assert bound.epsilon == pytest.approx(2.0)
    if cls is LeakByArithmetic:         # the read of an unreleased form at size T
        assert any(f"at T = {T_LARGE}" in f and "reads an unreleased reward-derived value" in f
                   for f in bound.findings)
        assert bound.epsilon == np.inf


def test_a_harmless_rewrite_keeps_the_per_arm_bound_and_its_value(honest):
    bound = _bound(Rewritten)
    assert bound.status.startswith(PER_ARM) and bound.epsilon == pytest.approx(honest.epsilon, abs=1e-12)


def test_a_counter_whose_items_leave_the_forms_is_refused_by_the_cross_check():
    """DP-UCB's counters take their items with np.asarray, where the linear forms are not
    followed: the cross-check against the lockstep costs at the small size finds it, and the
    size-T mode is not used (here the lockstep trace is then too large)."""
    with pytest.raises(TooLargeToTrace, match="the linear forms do not follow this code"):
        traced_upper("dp-ucb", variant="corrected", K=2, T=T_LARGE)
