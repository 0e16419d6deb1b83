"""The accountant's bound at the user's size, by the per-arm schedule
(docs/accountant.md#proof-at-your-size): a proof when the dependence analysis derives the
per-arm schedule from the code, a per-arm bound (not a proof) when only the traced sequences
show it.

At a T the enumeration cannot reach, ``traced_upper`` runs a few action sequences with every
reward-derived value carrying its linear form over the cells, checks the per-arm schedule
lemma on every enumerated sequence at the small size and on the sequences traced at size T,
and runs the dependence analysis (:mod:`dpbandits.reference.locality`) at both sizes: arm
locality of every read and write of per-(run, arm) state, the round only in comparisons
constant after the start, the schedule from counts. Anytime-Lazy-UCB at K = 2, T = 10^4 is a
proof with bound 1 (T = 10^5 under ``-m slow``). Planted breaks of locality that leave every
traced cost unchanged (a write into another arm's slot, a trigger that reads another arm's
count, a scale that reads log t, a trigger that compares t with a threshold past K, a trigger
that reads a released value) are each found with their line and keep the per-arm bound, not a
proof. Planted breaks that act only at a large size (a noise scale halved from round 5000, by
a branch and by arithmetic with no branch; a leak once an arm has more than 3000 pulls, both
ways) give an estimate naming the failure; a harmless rewrite keeps the proof and its value;
the bound equals the hand-derived per-arm cost of Anytime-Lazy-UCB.

Kinds: exact (deterministic traces: fixed seeds; the linear forms are exact).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpbandits.accountant import PER_ARM, PROOF, TooLargeToTrace, traced_upper
from dpbandits.accountant import size as sized
from dpbandits.reference.bandit.dp_ucb import DPUCB
from dpbandits.reference.bandit.dp_ucb_bound import DPUCBBound
from dpbandits.reference.bandit.private_ucb import PrivateUCB
from planted_lazy_ucb import PlantedLazyUCB, where

T_LARGE = 10_000


class HalvedByBranch(PlantedLazyUCB):
    """The epoch release's noise scale halved from round 5000 on, by a branch."""

    def _scale(self, t, i, j):
        if t >= 5000:
            return 0.5 / self.epsilon
        return 1.0 / self.epsilon


class HalvedByArithmetic(PlantedLazyUCB):
    """The same, by arithmetic with no branch (a Python bool in the scale)."""

    def _scale(self, t, i, j):
        return (1.0 / self.epsilon) / (1 + (t >= 5000))


class LeakByBranch(PlantedLazyUCB):
    """Once an arm has more than 3000 pulls in its epoch, its index takes the raw epoch mean,
    by a branch."""

    def _after_sums(self, t, x, rows, actions):
        many = self.N[rows, actions] > 3000
        if many.any():
            i, j = rows[many], actions[many]
            self.mu_tilde[i, j] = self.Phi[i, j] / self.N[i, j]


class LeakByArithmetic(PlantedLazyUCB):
    """The same, by arithmetic with no branch: a 0/1 weight on the raw mean."""

    def _after_sums(self, t, x, rows, actions):
        w = (self.N[rows, actions] > 3000).astype(float)
        raw = self.Phi[rows, actions] / np.maximum(self.N[rows, actions], 1)
        self.mu_tilde[rows, actions] = (1.0 - w) * self.mu_tilde[rows, actions] + w * raw


class Rewritten(PlantedLazyUCB):
    """A harmless rewrite: the epoch sum released as twice its half plus nothing, the scale
    as a product."""

    def _statistic(self, i, j):
        half = self.Phi[i, j] * 0.5
        return half + half + 0.0 * self.Phi[i, j]

    def _scale(self, t, i, j):
        return 2.0 * (0.5 / self.epsilon)


class OtherArmsSlot(PlantedLazyUCB):
    """Each observation also writes the next arm's epoch sum (``(actions + 1) % K``), adding
    nothing: every traced cost is unchanged, the write is not arm-local."""

    def _after_sums(self, t, x, rows, actions):
        self.Phi[rows, (actions + 1) % self.K] += 0.0      # planted: another arm's slot


class OtherArmsCount(PlantedLazyUCB):
    """The epoch's trigger reads the next arm's count, times zero."""

    def _after_sums(self, t, x, rows, actions):
        other = self.N[rows, (actions + 1) % self.K]        # planted: another arm's count
        self.N[rows, actions] += 0 * other


class ScaleReadsLogT(PlantedLazyUCB):
    """The epoch release's scale reads log t (and divides it out again)."""

    def _scale(self, t, i, j):
        return (1.0 / self.epsilon) * (math.log(t) / math.log(t))     # planted: log t


class TriggerReadsRound(PlantedLazyUCB):
    """The epoch's count reads whether t passed a threshold past K (500, within the T = 600
    traced here), times zero, by arithmetic with no branch."""

    def _after_sums(self, t, x, rows, actions):
        self.N[rows, actions] += 0 * int(t > 500)           # planted: t against 500


class TriggerReadsRelease(PlantedLazyUCB):
    """An extra pull counted when the arm's released mean exceeds 100 (never met), by
    arithmetic with no branch: the epoch's trigger reads a released value."""

    def _after_sums(self, t, x, rows, actions):
        self.N[rows, actions] += (self.mu_tilde[rows, actions] > 100.0)  # planted: a release


def _bound(cls=None, T=T_LARGE):
    return traced_upper("anytime-lazy-ucb", K=2, T=T, policy_class=cls)


@pytest.fixture(scope="module")
def honest():
    return _bound()


def test_anytime_lazy_ucb_is_a_proof_at_t_10_000_with_bound_1(honest):
    assert honest.status == PROOF and honest.proof
    assert honest.epsilon == pytest.approx(1.0, abs=1e-12)
    assert honest.K == 2 and honest.T == T_LARGE
    assert honest.scope.startswith(f"K = 2, T = {T_LARGE}, every action sequence, every T' <= T "
                                   f"(the policy takes no T), every table with entries in [0, 1], "
                                   f"every noise draw (per-arm schedule derived from the code")
    assert not honest.findings


@pytest.mark.slow
def test_anytime_lazy_ucb_is_a_proof_at_t_100_000_with_bound_1():
    bound = _bound(T=100_000)
    assert bound.proof and bound.epsilon == pytest.approx(1.0, abs=1e-12)
    assert "per-arm schedule derived from the code" in bound.scope and not bound.findings


@pytest.mark.parametrize("cls, what", [
    (OtherArmsSlot, "of self.Phi by an index that is not the traced (rows, actions) pair"),
    (OtherArmsCount, "a read of self.N by an index that is not the traced (rows, actions) pair"),
    (ScaleReadsLogT, "the round is used in a conversion to float"),
    (TriggerReadsRound, "the round is compared with 500"),
    (TriggerReadsRelease, "a write of count state self.N reads a value read from float state "
                          "or released"),
], ids=lambda v: v if isinstance(v, str) and " " not in v else getattr(v, "__name__", "what"))
def test_a_planted_break_of_locality_is_found_with_its_line_and_is_not_a_proof(cls, what):
    """Each break leaves every traced cost as it was (the lemma holds on the traced
    sequences), so the checks of the traced costs cannot tell it apart: the dependence
    analysis names the break and its line, and the bound is not a proof (the per-arm bound,
    whose status names the break; the read of a released value is also seen by the noise probe
    of the enumeration at T = 8, which makes it an estimate)."""
    bound = _bound(cls, T=600)
    assert not bound.proof and bound.status != PROOF
    assert bound.epsilon == pytest.approx(1.0)
    line = where(cls, "# planted")           # test_accountant_size.py:N
    assert any(what in f and line in f for f in bound.findings), (line, bound.findings)
    if cls is TriggerReadsRelease:
        assert any("the release schedule a predicate (np.greater) reads a released value" in f
                   and line in f for f in bound.findings)
    else:
        assert bound.status.startswith(PER_ARM) and "not derived from the code" in bound.status
        assert what in bound.status and line in bound.status


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
    if cls in (HalvedByBranch, HalvedByArithmetic):     # the dependence analysis names t >= 5000
        assert any("the round is compared with 5000" in f for f in bound.findings)
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


def test_a_harmless_rewrite_keeps_the_proof_and_its_value(honest):
    bound = _bound(Rewritten)
    assert bound.proof and bound.epsilon == pytest.approx(honest.epsilon, abs=1e-12)


class PlainItems(DPUCB):
    """DP-UCB with its items written into a plain array (np.zeros): the rewards leave the
    linear forms there."""

    def observe(self, t, actions, feedback):
        r = self.check_observation(t, actions, feedback)
        items = np.zeros((self.runs, self.K))                   # planted: forms not followed
        items[self._rows, actions] = r
        self.H.insert((self._rows[:, None], self._arms), items.ravel())
        self.n[self._rows, actions] += 1


def test_a_counter_whose_items_leave_the_forms_is_refused_by_the_cross_check():
    """Items written into a plain array leave the linear forms: the cross-check against the
    lockstep costs at the small size finds it, and the size-T mode is not used (here the
    lockstep trace is then too large). DP-UCB's own items array (np.zeros_like of the
    rewards) and its counters (np.asanyarray) keep them."""
    with pytest.raises(TooLargeToTrace, match="the linear forms do not follow this code"):
        traced_upper("dp-ucb", variant="corrected", K=2, T=T_LARGE, policy_class=PlainItems)


class WholeArray(PlantedLazyUCB):
    """Every arm's epoch sum scaled by one in every round: a whole-array update."""

    def _after_sums(self, t, x, rows, actions):
        self.Phi *= 1.0                                     # planted: every arm's slot


class OutsideTheMask(PlantedLazyUCB):
    """After ``any()`` of the epoch mask, a write of every run's count (runs whose epoch did
    not end included): the batch would not be its runs one by one."""

    def _after_sums(self, t, x, rows, actions):
        full = self.N[rows, actions] == 1
        if full.any():
            self.N[rows, actions] += 0                       # planted: every run after any()


class SharedView(PlantedLazyUCB):
    """A flat view of the counts kept beside them, read for another arm."""

    def _after_sums(self, t, x, rows, actions):
        if not hasattr(self, "flat"):
            self.flat = self.N.reshape(-1)


class BroadcastPair(PlantedLazyUCB):
    """The counts read by the traced pair broadcast against itself (rows[:, None], actions):
    every run's count at every run's action."""

    def _after_sums(self, t, x, rows, actions):
        self.N[rows, actions] += 0 * self.N[rows[:, None], actions].sum(axis=1)  # planted


@pytest.mark.parametrize("cls, what", [
    (BroadcastPair, "a read of self.N by an index that is not the traced (rows, actions) pair"),
    (WholeArray, "a whole-array use of self.Phi (np.multiply"),
    (OutsideTheMask, "selects runs outside the any()"),
    (SharedView, "self.flat shares memory with per-(run, arm) state"),
], ids=lambda v: v.__name__ if isinstance(v, type) else "what")
def test_the_dependence_analysis_names_each_kind_of_break(cls, what):
    """Exact: the analysis alone, on a short run (T = 40) of the five traced sequences."""
    run = sized.symbolic_run("anytime-lazy-ucb", epsilon=1.0, K=2, T=40, variant=None,
                             params={}, policy_class=cls, derive=True,
                             sequences=sized.size_sequences(2, 40, [(0, 1)]))
    assert any(what in f for f in run.locality), run.locality
    honest = sized.symbolic_run("anytime-lazy-ucb", epsilon=1.0, K=2, T=40, variant=None,
                                params={}, policy_class=PlantedLazyUCB, derive=True,
                                sequences=sized.size_sequences(2, 40, [(0, 1)]))
    assert honest.locality == []


# --- the tree counters, one item per observation (DP-UCB-Bound, Private-UCB) -------------------

T_TREES = 2000
"""The size of the counters' default tests (T = 10^4: benchmarks/accountant.py)."""


@pytest.mark.parametrize("name, variant, eps", [
    ("dp-ucb-bound", "corrected", 1.0), ("dp-ucb-bound", "paper", 2.0),
    ("private-ucb", None, 0.5)], ids=["dp-ucb-bound-corrected", "dp-ucb-bound-paper",
                                      "private-ucb"])
def test_the_tree_counters_fed_by_the_played_arm_are_proofs(name, variant, eps):
    """Each counter takes the played arm's reward through ``np.ravel_multi_index`` of the
    traced (rows, actions) pair, its state a flattened (runs, K) grid: the per-arm schedule
    (stream form) is derived from the code. The bound is the hybrid counter's worst item
    (item 2^k + 1: one logarithmic block at 1/eps_L and k binary nodes at k/eps_B: 1/2 + 1/2
    with the budget split, 1 + 1 as printed) and, for Private-UCB, a leaf in all
    bit_length(T) = 11 nodes of its tree at scale 11 K / eps: 1/K."""
    bound = traced_upper(name, variant=variant, K=2, T=T_TREES)
    assert bound.status == PROOF and bound.proof, bound.status
    assert bound.epsilon == pytest.approx(eps, abs=1e-9)
    assert "per-arm schedule derived from the code" in bound.scope and not bound.findings


class NextArmsCounter(DPUCBBound):
    """DP-UCB-Bound inserting each reward into the next arm's counter."""

    def observe(self, t, actions, feedback):
        r = self.check_observation(t, actions, feedback)
        self.H.insert((self._rows, (actions + 1) % self.K), r)      # planted: the next counter
        self.n[self._rows, actions] += 1


class ReleaseReadsRelease(DPUCBBound):
    """DP-UCB-Bound that skips the insertion (and so its counter's releases) when the played
    arm's last release exceeds 10^9 (never, at these sizes): a node released at a round that
    depends on a released value."""

    def observe(self, t, actions, feedback):
        r = self.check_observation(t, actions, feedback)
        where = np.ravel_multi_index((self._rows, actions), self.H.shape)
        small = self.H._value[where] <= 1e9
        rows, arms = self._rows[small], actions[small]      # planted: a selection by a release
        self.H.insert((rows, arms), r[small])
        self.n[self._rows, actions] += 1


@pytest.mark.parametrize("cls, what", [
    (NextArmsCounter, "a read of self.H.n by an index that is not the traced (rows, actions) "
                      "pair under one selection"),
    (ReleaseReadsRelease, "a selection reads a value read from float state or released"),
], ids=lambda v: v.__name__ if isinstance(v, type) else "what")
def test_a_planted_break_of_a_tree_counter_is_found_with_its_line_and_is_not_a_proof(cls, what):
    """The next arm's counter leaves every traced cost unchanged (the lemma holds on the traced
    sequences): the analysis names the index and the line that made it, and the bound stays
    the per-arm bound. The selection by a released value never drops a run: the analysis names
    it; the noise probe of the enumeration at T = 8 also sees the read."""
    bound = traced_upper("dp-ucb-bound", variant="corrected", K=2, T=300, policy_class=cls)
    assert not bound.proof and bound.status != PROOF
    assert bound.epsilon == pytest.approx(1.0)
    line = where(cls, "# planted")
    assert any(what in f and line in f for f in bound.findings), (line, bound.findings)


class PlainlyRewritten(DPUCBBound):
    """Harmless: the reward inserted as twice its half, the traced pair named first."""

    def observe(self, t, actions, feedback):
        r = self.check_observation(t, actions, feedback)
        i, j = self._rows, actions
        self.H.insert((i, j), 2.0 * (0.5 * r))
        self.n[i, j] += 1


class CountsItsPlays(PrivateUCB):
    """Harmless: Private-UCB that also keeps its own count of plays (per-arm state beside the
    trees')."""

    def __init__(self, K, **kwargs):
        super().__init__(K, **kwargs)
        self.plays = np.zeros((self.runs, self.K), np.int64)

    def observe(self, t, actions, feedback):
        super().observe(t, actions, feedback)
        self.plays[self._rows, actions] += 1


@pytest.mark.parametrize("name, cls, eps", [("dp-ucb-bound", PlainlyRewritten, 1.0),
                                            ("private-ucb", CountsItsPlays, 0.5)],
                         ids=["dp-ucb-bound", "private-ucb"])
def test_a_harmless_rewrite_of_a_tree_counter_policy_stays_a_proof(name, cls, eps):
    bound = traced_upper(name, K=2, T=300, policy_class=cls)
    assert bound.proof and bound.epsilon == pytest.approx(eps, abs=1e-9), bound.status


# --- the round form: counters that take one item per arm in every round (DP-UCB) ----------------

class _DPUCB(DPUCB):
    """DP-UCB with its items (``_items``) and one step before the insertion (``_before``) open
    to a planted change."""

    def _items(self, t, actions, r):
        items = np.zeros_like(r, shape=(self.runs, self.K))
        items[self._rows, actions] = r
        return items

    def _before(self, t, actions):
        """A planted class's one added step (nothing here)."""

    def observe(self, t, actions, feedback):
        r = self.check_observation(t, actions, feedback)
        items = self._items(t, actions, r)
        self._before(t, actions)
        self.H.insert((self._rows[:, None], self._arms), items.ravel())
        self.n[self._rows, actions] += 1


class OtherArmsItem(_DPUCB):
    """The played reward written as the next arm's item."""

    def _items(self, t, actions, r):
        items = np.zeros_like(r, shape=(self.runs, self.K))
        items[self._rows, (actions + 1) % self.K] = r            # planted: another arm's item
        return items


class OddRoundsOtherArm(_DPUCB):
    """The reward is the played arm's item on even rounds and the next arm's on odd ones."""

    def _items(self, t, actions, r):
        items = np.zeros_like(r, shape=(self.runs, self.K))
        items[self._rows, actions if t % 2 == 0 else (actions + 1) % self.K] = r  # planted
        return items


class SkipOnRelease(_DPUCB):
    """The counters take their items only while every counter's last release is below 10^9
    (always, at these sizes): whether nodes are released reads released values."""

    def observe(self, t, actions, feedback):
        r = self.check_observation(t, actions, feedback)
        items = self._items(t, actions, r)
        every = np.ravel_multi_index((self._rows[:, None], self._arms), self.H.shape).ravel()
        if (self.H._value[every] < 1e9).all():                # planted: a release decides
            self.H.insert((self._rows[:, None], self._arms), items.ravel())
        self.n[self._rows, actions] += 1


class ScaleFromPlays(_DPUCB):
    """The binary nodes' budget read from the played arm's count of plays (times zero)."""

    def _before(self, t, actions):
        self.H.eps_B = self.eps_B + 0.0 * float(self.n[self._rows, actions][0])  # planted


@pytest.mark.parametrize("cls, what", [
    (OtherArmsItem, "an item for one arm that is not that arm's cell"),
    (OddRoundsOtherArm, "the round is used in arithmetic (%)"),
    (OddRoundsOtherArm, "an item for one arm that is not that arm's cell"),
    (SkipOnRelease, "a branch reads a value read from float state or released"),
    (ScaleFromPlays, "a value derived from the actions moved into a Python number"),
], ids=["other-arms-item", "odd-rounds-round", "odd-rounds-item", "skip-on-release",
        "scale-from-plays"])
def test_a_planted_break_of_the_round_form_is_found_with_its_line_and_is_not_a_proof(cls, what):
    """Each break is named by the dependence analysis with its line, and the bound is not a
    proof. The next arm's item leaves the worst cost at 1 (the counters take one item each,
    their schedules alike), so only the analysis tells it apart."""
    bound = traced_upper("dp-ucb", variant="corrected", K=2, T=300, policy_class=cls)
    assert not bound.proof and bound.status != PROOF, bound.status
    line = where(cls, "# planted")
    assert any(what in f and line in f for f in bound.findings), (line, bound.findings)
    if cls is OtherArmsItem:
        assert bound.epsilon == pytest.approx(1.0)
        assert bound.status.startswith(PER_ARM)


class ZerosByBroadcast(_DPUCB):
    """Harmless: the items allocated as a broadcast of zero times the rewards."""

    def _items(self, t, actions, r):
        items = np.broadcast_to(0.0 * r[:, None], (self.runs, self.K)).copy()
        items[self._rows, actions] = r
        return items


class CountsItsPlaysTwice(_DPUCB):
    """Harmless: a second count of plays, kept by the traced pair beside the counters."""

    def __init__(self, K, **kwargs):
        super().__init__(K, **kwargs)
        self.plays = np.zeros((self.runs, self.K), np.int64)

    def _before(self, t, actions):
        self.plays[self._rows, actions] += 1


@pytest.mark.parametrize("cls", [_DPUCB, ZerosByBroadcast, CountsItsPlaysTwice],
                         ids=lambda c: c.__name__)
def test_dp_ucb_is_a_proof_by_the_round_form_and_harmless_rewrites_keep_it(cls):
    """DP-UCB [corrected]: the hybrid counter's worst item at eps/2 + eps/2 = 1."""
    bound = traced_upper("dp-ucb", variant="corrected", K=2, T=300, policy_class=cls)
    assert bound.proof and bound.status == PROOF, bound.status
    assert bound.epsilon == pytest.approx(1.0, abs=1e-9)
    assert "per-arm schedule derived from the code, round form" in bound.scope


@pytest.mark.parametrize("variant, eps", [("corrected", 1.0), ("paper", 2.0)])
def test_dp_ucb_is_a_proof_at_t_2000(variant, eps):
    bound = traced_upper("dp-ucb", variant=variant, K=2, T=T_TREES)
    assert bound.status == PROOF and bound.epsilon == pytest.approx(eps, abs=1e-9)
    assert "round form" in bound.scope and not bound.findings


# --- any K: the small-size checks at K = 2 and 3, the analysis at the user's K ------------------

K_BEYOND = 5
"""A K where no enumeration fits (docs/accountant.md#any-k)."""

_LOCALITY_BREAKS = [
    (OtherArmsSlot, "of self.Phi by an index that is not the traced (rows, actions) pair"),
    (OtherArmsCount, "a read of self.N by an index that is not the traced (rows, actions) pair"),
    (ScaleReadsLogT, "the round is used in a conversion to float"),
    (TriggerReadsRound, "the round is compared with 500"),
    (TriggerReadsRelease, "a write of count state self.N reads a value read from float state "
                          "or released"),
]


@pytest.mark.parametrize("cls, what", [
    pytest.param(*case, marks=() if case[0] is OtherArmsSlot else pytest.mark.slow)
    for case in _LOCALITY_BREAKS], ids=[case[0].__name__ for case in _LOCALITY_BREAKS])
def test_at_k_5_a_planted_break_of_locality_is_found_with_its_line(cls, what):
    """At K = 5 the analysis runs at the user's K and T on the size-T sequences: each break
    is named with its line (at K = 5, T = 600, or at K = 2/3 where its line ran there too),
    and the bound is not a proof."""
    bound = traced_upper("anytime-lazy-ucb", K=K_BEYOND, T=600, policy_class=cls)
    assert not bound.proof and bound.status != PROOF
    assert bound.epsilon == pytest.approx(1.0)
    line = where(cls, "# planted")
    assert any(what in f and line in f for f in bound.findings), (line, bound.findings)


@pytest.mark.slow
@pytest.mark.parametrize("cls", [HalvedByBranch, HalvedByArithmetic, LeakByBranch,
                                 LeakByArithmetic])
def test_at_k_5_a_break_that_acts_only_at_a_large_size_is_not_a_proof(cls):
    bound = traced_upper("anytime-lazy-ucb", K=K_BEYOND, T=T_LARGE, policy_class=cls)
    assert not bound.proof and bound.status != PROOF and bound.findings
    if cls in (HalvedByBranch, HalvedByArithmetic):
        assert any("the round is compared with 5000" in f for f in bound.findings)
    if cls is HalvedByArithmetic:
        assert bound.epsilon == pytest.approx(2.0)
    if cls is LeakByArithmetic:
        assert bound.epsilon == np.inf


@pytest.mark.parametrize("cls", [
    PlantedLazyUCB, pytest.param(Rewritten, marks=pytest.mark.slow)], ids=lambda c: c.__name__)
def test_at_k_5_the_honest_code_and_a_harmless_rewrite_are_proofs_with_bound_1(cls):
    bound = traced_upper("anytime-lazy-ucb", K=K_BEYOND, T=600, policy_class=cls)
    assert bound.proof and bound.epsilon == pytest.approx(1.0, abs=1e-12), bound.status
    assert bound.scope.startswith(f"K = {K_BEYOND}, T = 600, every action sequence (its start "
                                  f"0 1 2 3 4 is fixed")
    assert "every line run at K = 2, T = 8, K = 3, T = 5 and K = 5, T = 600 checked" in bound.scope


@pytest.mark.slow
@pytest.mark.parametrize("name, variant, eps", [
    ("anytime-lazy-ucb", None, 1.0), ("lazy-dp-ts", None, 1.0),
    ("dp-ucb", "corrected", 1.0), ("dp-ucb-bound", "corrected", 1.0)])
def test_at_k_5_the_per_arm_proofs_hold_at_t_10_000(name, variant, eps):
    bound = traced_upper(name, variant=variant, K=K_BEYOND, T=T_LARGE)
    assert bound.proof and bound.epsilon == pytest.approx(eps, abs=1e-9), bound.status
    assert "every T' <= T (the policy takes no T)" in bound.scope


class StartReadsRelease(PlantedLazyUCB):
    """Rounds 1..K played in an order that reads a released mean (it never exceeds 5 here):
    the start is not fixed."""

    def act(self, t):
        if t <= self.K:
            return np.full(self.runs, (t - 1 + int(self.mu_tilde[0, 0] > 5)) % self.K)  # planted
        return super().act(t)


def test_at_k_5_a_start_that_reads_the_state_is_not_a_proof():
    """Beyond the enumeration the start (rounds 1..K) must be fixed: act may read only its
    configuration there. A read of a released mean is named, and no size-T bound is made."""
    with pytest.raises(TooLargeToTrace, match="the start is not fixed at K = 5: act at round 1 "
                                              "reads self.mu_tilde"):
        traced_upper("anytime-lazy-ucb", K=K_BEYOND, T=T_LARGE, policy_class=StartReadsRelease)


class TakesTheHorizon(PlantedLazyUCB):
    """Anytime-Lazy-UCB declared to take T (and keeping it): a proof at T is at T exactly."""

    needs_horizon = True

    def __init__(self, K, *, T, **kwargs):
        super().__init__(K, **kwargs)
        self.T = T


def test_the_prefix_argument_covers_every_shorter_horizon_only_where_the_policy_takes_no_t(
        honest):
    """An algorithm that takes no T: a proof at T covers every T' <= T (each shorter run is a
    prefix of this one, docs/accountant.md#every-shorter-horizon). A policy that takes T gets
    "at T exactly", and so does Private-UCB."""
    assert "every T' <= T (the policy takes no T)" in honest.scope
    bound = traced_upper("anytime-lazy-ucb", K=2, T=300, policy_class=TakesTheHorizon)
    assert bound.proof and "at T exactly (the policy takes T)" in bound.scope
    assert "every T' <=" not in bound.scope
    private = traced_upper("private-ucb", K=2, T=300)
    assert private.proof and "at T exactly (the policy takes T)" in private.scope


def test_a_size_t_bound_below_a_small_sizes_bound_is_not_a_proof():
    """The cross-check: a small size's bound that is infinite (or, for an algorithm that takes
    no T, above the size-T bound) leaves the size-T bound an estimate naming both numbers."""
    from dpbandits.accountant.upper import _Small, _below_small
    from dataclasses import replace as _replace

    small = _Small(2, 8, _replace(traced_upper("anytime-lazy-ucb", K=2, T=6), epsilon=np.inf),
                   None, None, [])
    assert _below_small(1.0, small, 5, 600, PlantedLazyUCB)[0].startswith(
        "below the small size's bound: infinite at K = 2, T = 8, 1 at K = 5, T = 600")
    above = _Small(2, 8, _replace(small.accounting, epsilon=1.5), None, None, [])
    assert "1.5 at K = 2, T = 8, 1 at K = 5, T = 600" in _below_small(1.0, above, 5, 600,
                                                                       PlantedLazyUCB)[0]
    assert _below_small(1.0, above, 5, 600, TakesTheHorizon) == []
    assert _below_small(1.5, above, 5, 600, PlantedLazyUCB) == []


def test_a_finding_made_at_both_small_sizes_is_one_line():
    from dpbandits.accountant.upper import _merged

    assert _merged(["at K = 2, T = 8: branch never ran: a.py:3", "at T = 900: the round",
                    "at K = 3, T = 5: branch never ran: a.py:3", "state outside"]) == [
        "at K = 2, T = 8 and K = 3, T = 5: branch never ran: a.py:3", "at T = 900: the round",
        "state outside"]
