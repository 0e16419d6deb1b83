"""The accountant's proof against breaks that a value-by-value check cannot see, and against
rewrites that must not move it (docs/accountant.md#what-a-proof-is).

Three classes of planted break, at least three of each, each found at the size of the proof
(K = 2, T = 6, every action sequence on every {0, 1} table):

* **noise laws**: the released noise is a draw that was compared, selected, redrawn, clipped or
  combined before its release; the finding names the operation's line, and the bound is not a
  proof (the release's loss is unbounded);
* **information flow**: a branch, predicate or index reads an unreleased reward, whatever the
  value (a test that fires only for rewards strictly inside (0, 1), or in (0.6, 0.7), never
  fires on a {0, 1} table and is still found);
* **size**: a change that acts only from a round beyond the proof's T (a noise scale halved
  from round 7 or 9): the branch never ran under tracing, so the bound at T = 6 is an estimate
  naming the line, and at a T where it runs, the proof is the broken algorithm's bound.

Ten harmless rewrites leave the bound and its status alone, among them the four an earlier
check got wrong: Laplace noise written as a difference of two exponentials, the floor of a sum,
a squared reward, and a scale computed from earlier released values. The floor and the square
hold on every table in [0, 1] by interval arithmetic
(docs/accountant.md#how-sensitivities-are-bounded); four more cases bound or name a map.

Kinds: exact (deterministic traces: fixed seeds, enumerated tables).
"""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest

from dpbandits.accountant import traced_upper
from dpbandits.reference import noise
from dpbandits.reference.bandit import anytime_lazy_ucb
from dpbandits.reference.bandit.anytime_lazy_ucb import AnytimeLazyUCB
from dpbandits.reference.noise import laplace, release
from planted_lazy_ucb import PlantedLazyUCB, where


# --- noise laws ----------------------------------------------------------------------------------

class SmallerOfTwo(PlantedLazyUCB):
    """The draw of smaller magnitude of two Lap(1/eps) draws (its law is not Laplace: the
    log-ratio of its density reaches 2 eps)."""

    def _draw(self, scale, size, t):
        a, b = laplace(self.rng, scale, size), laplace(self.rng, scale, size)
        return np.where(np.abs(a) < np.abs(b), a, b)


class Truncated(PlantedLazyUCB):
    """Laplace redrawn while its magnitude exceeds 2/eps (a truncated Laplace: a release of an
    epoch sum has probability 0 on one table for values that its neighbour reaches)."""

    def _draw(self, scale, size, t):
        z = laplace(self.rng, scale, size)
        while np.any(np.abs(z) > 2.0 * scale):
            z = laplace(self.rng, scale, size)
        return z


class RawWhenLarge(PlantedLazyUCB):
    """The noise dropped whenever it exceeds 3/eps (the raw sum is released then: 2.5% of the
    releases)."""

    def _draw(self, scale, size, t):
        z = laplace(self.rng, scale, size)
        return np.where(z > 3.0 * scale, 0.0, z)


class Clipped(PlantedLazyUCB):
    """The noise clipped to [-1/eps, 1/eps]."""

    def _draw(self, scale, size, t):
        return np.clip(laplace(self.rng, scale, size), -scale, scale)


class SumOfTwo(PlantedLazyUCB):
    """Two Laplace draws added (not a Laplace law)."""

    def _draw(self, scale, size, t):
        return laplace(self.rng, scale, size) + laplace(self.rng, scale, size)


NOISE_LAWS = [(SmallerOfTwo, "np.absolute", "np.abs(a) < np.abs(b)"),
              (Truncated, "np.absolute", "while np.any(np.abs(z) > 2.0 * scale)"),
              (RawWhenLarge, "np.greater", "z > 3.0 * scale"),
              (Clipped, "np.clip", "np.clip(laplace"),
              (SumOfTwo, "np.add", "laplace(self.rng, scale, size) + laplace")]


@pytest.mark.exact
@pytest.mark.parametrize("cls, operation, text", NOISE_LAWS,
                         ids=[c.__name__ for c, _, _ in NOISE_LAWS])
def test_a_draw_operated_on_before_its_release_is_not_its_law(cls, operation, text):
    bound = traced_upper("anytime-lazy-ucb", K=2, T=6, delta=0.0, policy_class=cls)
    assert not bound.proof and math.isinf(bound.epsilon)
    site = f"{operation} at {where(cls._draw, text)}"
    assert any("not a declared law as drawn" in f and site in f for f in bound.findings), \
        bound.findings


# --- information flow ----------------------------------------------------------------------------

class LeakInside(PlantedLazyUCB):
    """The raw reward released as arm 0's mean whenever it lies strictly inside (0, 1): never on
    a {0, 1} table."""

    def _on_feedback(self, t, x, rows, actions):
        inside = (x > 0.0) & (x < 1.0)
        if inside.any():
            self.mu_tilde[rows[inside], 0] = x[inside]


class LeakBand(PlantedLazyUCB):
    """The raw reward released whenever it lies in (0.6, 0.7)."""

    def _on_feedback(self, t, x, rows, actions):
        if np.any((x > 0.6) & (x < 0.7)):
            self.mu_tilde[rows, actions] = x


class RawSumTrigger(PlantedLazyUCB):
    """An epoch sum compared with a threshold no {0, 1} table reaches at this size."""

    def _on_feedback(self, t, x, rows, actions):
        if np.any(self.Phi > 100.0):
            self.mu_tilde[:] = self.Phi


class IndexedByReward(PlantedLazyUCB):
    """A count indexed by the reward (a table of reward levels)."""

    def _on_feedback(self, t, x, rows, actions):
        if not hasattr(self, "levels"):
            self.levels = np.zeros((self.runs, 3), np.int64)
        self.levels[rows, (2 * x).astype(np.int64)] += 1


FLOWS = [(LeakInside, "np.greater", "inside = (x > 0.0)"),
         (LeakBand, "np.greater", "np.any((x > 0.6)"),
         (RawSumTrigger, "np.greater", "np.any(self.Phi > 100.0)"),
         (IndexedByReward, "a conversion to int64", "(2 * x).astype")]


@pytest.mark.exact
@pytest.mark.parametrize("cls, read, text", FLOWS, ids=[c.__name__ for c, _, _ in FLOWS])
def test_a_read_of_an_unreleased_reward_is_found_whatever_its_value(cls, read, text):
    bound = traced_upper("anytime-lazy-ucb", K=2, T=6, delta=0.0, policy_class=cls)
    assert math.isinf(bound.epsilon)
    site = f"reads an unreleased reward-derived value ({where(cls._on_feedback, text)})"
    assert any(read in f and site in f for f in bound.findings), bound.findings


# --- size ----------------------------------------------------------------------------------------

class HalvedFrom7(PlantedLazyUCB):
    """The noise scale halved from round 7 on."""

    def _scale(self, t, i, j):
        if t >= 7:
            return 0.5 / self.epsilon
        return 1.0 / self.epsilon


class HalvedFrom9(PlantedLazyUCB):
    """The noise scale halved from round 9 on."""

    def _scale(self, t, i, j):
        if t >= 9:
            return 0.5 / self.epsilon
        return 1.0 / self.epsilon


class LeakAfter1000(PlantedLazyUCB):
    """The raw sums released from round 1001 on."""

    def _on_feedback(self, t, x, rows, actions):
        if t > 1000:
            self.mu_tilde[:] = self.Phi


SIZES = [(HalvedFrom7, "if t >= 7", 6, 8, 2.0), (HalvedFrom9, "if t >= 9", 8, None, None),
         (LeakAfter1000, "if t > 1000", 6, None, None)]


@pytest.mark.exact
@pytest.mark.parametrize("cls, text, small, large, broken", SIZES,
                         ids=[c.__name__ for c, *_ in SIZES])
def test_a_change_beyond_the_proofs_size_makes_it_an_estimate_naming_the_line(
        cls, text, small, large, broken):
    method = cls._scale if "_scale" in vars(cls) else cls._on_feedback
    bound = traced_upper("anytime-lazy-ucb", K=2, T=small, delta=0.0, policy_class=cls)
    assert not bound.proof and bound.status.endswith("never ran under tracing)")
    assert f"branch never ran under tracing: {where(method, text)} (its true side never ran)" in \
        bound.findings, bound.findings
    if large is not None:
        proof = traced_upper("anytime-lazy-ucb", K=2, T=large, delta=0.0, policy_class=cls)
        assert proof.proof and proof.epsilon == pytest.approx(broken)


# --- the noise: a schedule that reads released values --------------------------------------------

class ExtraReleaseWhenHigh(PlantedLazyUCB):
    """One more release of arm 0's epoch sum whenever arm 0's released mean exceeds 5 (about
    e^-5 / 2 of the time at the start): the schedule follows the noise."""

    def _on_feedback(self, t, x, rows, actions):
        high = self.mu_tilde[:, 0] > 5.0
        if high.any():
            release(self.Phi[rows[high], 0], laplace(self.rng, 1.0 / self.epsilon, int(high.sum())))


@pytest.mark.exact
class RawNumpyNoise(AnytimeLazyUCB):
    """The first-round release drawn with numpy directly, outside the noise source."""

    def observe(self, t, actions, feedback):
        drawn = anytime_lazy_ucb.laplace
        anytime_lazy_ucb.laplace = lambda rng, scale, size: rng.laplace(0.0, scale, size)
        try:
            return super().observe(t, actions, feedback)
        finally:
            anytime_lazy_ucb.laplace = drawn


def test_an_unbounded_release_is_named_in_the_findings():
    """A release whose noise the accountant did not see drawn costs an unbounded loss; the
    bound says which release and why, not only inf."""
    bound = traced_upper("anytime-lazy-ucb", K=2, T=4, policy_class=RawNumpyNoise)
    assert math.isinf(bound.epsilon)
    assert any("release of round 1 has no fresh declared draw" in f
               and f.endswith(f"(the release at {_release_line()})") for f in bound.findings), \
        bound.findings


def _release_line() -> str:
    """``anytime_lazy_ucb.py:N``, the line of Anytime-Lazy-UCB's first-pull release (Alg. 1
    l.2; the epochs' releases are the lazy-epoch mechanism's)."""
    lines, _ = inspect.getsourcelines(anytime_lazy_ucb)
    (n,) = [i + 1 for i, text in enumerate(lines) if "= release(" in text]
    return f"anytime_lazy_ucb.py:{n}"


def test_a_counterexample_names_the_line_of_each_release():
    """Each release step of a named row says where the release is: the algorithm's line, or the
    shared mechanism's that releases for it (DP-UCB's counters)."""
    bound = traced_upper("anytime-lazy-ucb", K=2, T=4)
    steps = [s for ce in bound.counterexamples for s in ce.steps if s.what == "release"]
    assert {s.line for s in steps if s.round == 1} == {_release_line()}
    assert {s.line.partition(":")[0] for s in steps if s.round > 2} == {"mechanisms.py"}
    first = next(ce for ce in bound.counterexamples if ce.round == 1)
    assert f"release at round 1, {_release_line()} (scale" in first.summary()
    counters = traced_upper("dp-ucb", variant="paper", K=2, T=4).counterexamples[0]
    assert {s.line.partition(":")[0] for s in counters.steps} == {"mechanisms.py"}


def test_a_schedule_that_reads_a_released_value_is_not_a_proof_for_every_noise_draw():
    """The threshold is crossed on neither noise seed of the enumeration, so the releases are
    the honest ones on every sequence and table; the noise probe's run still sees the
    comparison read a released value, and the bound is an estimate naming the line (the extra
    release's branch never ran either, which coverage names too). The honest algorithm's proof
    says every noise draw."""
    honest = traced_upper("anytime-lazy-ucb", K=2, T=6, delta=0.0)
    assert honest.proof and honest.scope.endswith("every noise draw)")
    bound = traced_upper("anytime-lazy-ucb", K=2, T=6, delta=0.0,
                         policy_class=ExtraReleaseWhenHigh)
    assert bound.epsilon == pytest.approx(honest.epsilon)
    assert not bound.proof and "every noise draw" not in bound.scope
    line = where(ExtraReleaseWhenHigh._on_feedback, "self.mu_tilde[:, 0] > 5.0")
    assert any(f.startswith("the release schedule a predicate (np.greater) reads a released value")
               and line in f for f in bound.findings), bound.findings


# --- harmless rewrites ---------------------------------------------------------------------------

class ExponentialDifference(PlantedLazyUCB):
    """Lap(b) drawn as the difference of two Exp(b) draws."""

    def _draw(self, scale, size, t):
        return noise.exponential(self.rng, scale, size) - noise.exponential(self.rng, scale, size)


class FlooredSum(PlantedLazyUCB):
    """The floor of the epoch sum released (sensitivity still 1)."""

    def _statistic(self, i, j):
        return np.floor(self.Phi[i, j])


class SquaredFirst(PlantedLazyUCB):
    """The first reward squared before its release (sensitivity still 1 on [0, 1])."""

    def _first(self, x):
        return x ** 2


class ScaleFromReleases(PlantedLazyUCB):
    """The scale computed from the released means (a public value: it is 1/eps whatever they
    are)."""

    def _scale(self, t, i, j):
        return 1.0 / self.epsilon + 0.0 * np.abs(self.mu_tilde[i, j])


class NegatedDraw(PlantedLazyUCB):
    """The Laplace draw negated (Laplace is symmetric)."""

    def _draw(self, scale, size, t):
        return -laplace(self.rng, scale, size)


class UnitOverEpsilon(PlantedLazyUCB):
    """Lap(1) divided by eps."""

    def _draw(self, scale, size, t):
        return laplace(self.rng, 1.0, size) / self.epsilon


class DoubledSumDoubledNoise(PlantedLazyUCB):
    """Twice the sum with twice the noise scale (the same loss)."""

    def _draw(self, scale, size, t):
        return 2.0 * laplace(self.rng, scale, size)

    def _statistic(self, i, j):
        return 2.0 * self.Phi[i, j]

    def _first(self, x):
        return 2.0 * x


class CopiedNoise(PlantedLazyUCB):
    """The draw copied before its release."""

    def _draw(self, scale, size, t):
        return laplace(self.rng, scale, size).copy()


class PublicBranch(PlantedLazyUCB):
    """A branch on the round's parity, both sides doing the same."""

    def _scale(self, t, i, j):
        if t % 2 == 0:
            return 1.0 / self.epsilon
        return 1.0 / self.epsilon


class SumBySlices(PlantedLazyUCB):
    """The epoch sum read through a copy of the state."""

    def _statistic(self, i, j):
        return self.Phi.copy()[i, j] + 0.0


HARMLESS = [ExponentialDifference, FlooredSum, SquaredFirst, ScaleFromReleases, NegatedDraw,
            UnitOverEpsilon, DoubledSumDoubledNoise, CopiedNoise, PublicBranch, SumBySlices]
NONLINEAR = {FlooredSum: ("np.floor", "_statistic", "np.floor(self.Phi[i, j])"),
             SquaredFirst: ("np.square", "_first", "return x ** 2")}
"""Nonlinear rewrites: the assumption names the map, bounded by its interval rule."""


@pytest.mark.exact
@pytest.mark.parametrize("cls", HARMLESS, ids=[c.__name__ for c in HARMLESS])
def test_a_harmless_rewrite_leaves_the_proof_alone(cls):
    honest = traced_upper("anytime-lazy-ucb", K=2, T=6, delta=0.0)
    rewrite = traced_upper("anytime-lazy-ucb", K=2, T=6, delta=0.0, policy_class=cls)
    assert honest.proof and "every table with entries in [0, 1]" in honest.scope
    assert rewrite.proof and rewrite.epsilon == pytest.approx(honest.epsilon, rel=1e-9), \
        (rewrite.status, rewrite.findings)
    assert rewrite.scope == honest.scope and not rewrite.findings
    assert ("interval arithmetic" in rewrite.assumption) == (cls in NONLINEAR)
    if cls in NONLINEAR:
        name, method, text = NONLINEAR[cls]
        site = where(getattr(cls, method), text)
        assert f"{name} of a reward-derived value ({site}) bounded by interval arithmetic " \
               f"over [0, 1]" in rewrite.assumption, rewrite.assumption

# --- sensitivities over [0, 1] by interval arithmetic --------------------------------------------

class RewardTimes15(PlantedLazyUCB):
    """The epoch sum times 1.5 before its release (affine: it changes by 1.5)."""

    def _statistic(self, i, j):
        return 1.5 * self.Phi[i, j]


class BumpFirst(PlantedLazyUCB):
    """8 x (1 - x) of the first reward: 0 on {0, 1} tables, 2 at x = 1/2; bounded by 8 * 1 +
    1 * 8 = 16, capped by the width of its range [0, 8]: 8 (sound, not tight)."""

    def _first(self, x):
        return 8.0 * x * (1.0 - x)


class FirstModTwo(PlantedLazyUCB):
    """The first reward released as x mod 2 (x itself on [0, 1]; the remainder has no rule)."""

    def _first(self, x):
        return x % 2.0


class DividedByReward(PlantedLazyUCB):
    """The epoch sum over 1 + the last reward: no rule, and coefficients that move (no proof)."""

    def _on_feedback(self, t, x, rows, actions):
        self.last = x

    def _statistic(self, i, j):
        return self.Phi[i, j] / (1.0 + self.last)


class BumpByProduct(PlantedLazyUCB):
    """8 x (1 - x) of the first reward written through an array function no rule lists
    (``np.prod`` of a stack): 0 on {0, 1} tables, 2 at x = 1/2. Read as affine, the proof would
    claim every [0, 1] table at 1; it is a nonlinear map with no rule, named."""

    def _first(self, x):
        return 8.0 * np.prod(np.stack([x, 1.0 - x]), axis=0)


class BumpByEinsum(PlantedLazyUCB):
    """The same map through ``np.einsum`` (a product of two reward-derived operands)."""

    def _first(self, x):
        return 8.0 * np.einsum("i,i->i", x, 1.0 - x)


INTERVAL_BREAKS = [(RewardTimes15, 1.5, None), (BumpFirst, 8.0, None),
                   (FirstModTwo, 1.0, ("np.remainder", "_first", "x % 2.0")),
                   (BumpByProduct, 1.0, ("np.prod", "_first", "np.prod(")),
                   (BumpByEinsum, 1.0, ("np.einsum", "_first", "np.einsum(")),
                   (DividedByReward, None, ("np.divide", "_statistic", "/ (1.0 + self.last)"))]


@pytest.mark.exact
@pytest.mark.parametrize("cls, epsilon, unruled", INTERVAL_BREAKS,
                         ids=[c.__name__ for c, *_ in INTERVAL_BREAKS])
def test_a_statistic_is_bounded_over_unit_tables_or_its_map_is_named(cls, epsilon, unruled):
    """A proof over [0, 1] with the interval bound, or the map with no rule named (in the scope,
    where the proof holds on {0, 1} tables)."""
    bound = traced_upper("anytime-lazy-ucb", K=2, T=6, delta=0.0, policy_class=cls)
    assert bound.proof == (epsilon is not None), (bound.status, bound.findings)
    assert epsilon is None or bound.epsilon == pytest.approx(epsilon)
    if unruled is None:
        assert bound.scope.startswith("K = 2, T = 6, every table with entries in [0, 1] (")
        return
    name, method, text = unruled
    note = f"{name} of a reward-derived value ({where(getattr(cls, method), text)})"
    assert f"no interval rule: {note}: its change over [0, 1] is not bounded; a proof covers " \
           f"the enumerated {{0, 1}} tables only" in bound.findings, bound.findings
    if bound.proof:
        assert bound.scope.startswith(f"K = 2, T = 6, every table with entries in {{0, 1}} "
                                      f"(not [0, 1]: {note} has no interval rule; 64 action")


@pytest.mark.exact
def test_the_suite_has_three_breaks_of_each_class_and_ten_harmless_rewrites():
    assert len(NOISE_LAWS) >= 3 and len(FLOWS) >= 3 and len(SIZES) >= 3
    assert len(HARMLESS) >= 10
    assert anytime_lazy_ucb.AnytimeLazyUCB is AnytimeLazyUCB
