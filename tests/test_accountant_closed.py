"""The accountant fails closed where its own machinery used to fail (docs/accountant.md#fail-closed):
noise drawn outside the project's noise source, state carried outside the policy object and a
slot fed another run's reward are findings with their lines, never a traceback; and the bound is
compared with the claim exactly, so a reward of another arm mixed in with weight 1e-12 is not
"holds".

Kinds: exact (deterministic traces at fixed seeds; every expected value is worked out in the
test's docstring). The default run plants one of each family at the small size and one at the
size-T mode; ``-m slow`` runs the rest.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from dpbandits.accountant import PROOF, traced_upper
from dpbandits.accountant.brackets import Bracket
from dpbandits.accountant.composition import exact_ratio_sum, exact_sum
from dpbandits.audit.from_accountant import accountant_pairs
from dpbandits.cli.listing import _verdict
from dpbandits.reference.privacy import Guarantee
from dpbandits.reference.registry import make
from planted_lazy_ucb import PlantedLazyUCB, where

_BOOKS: dict = {}


# --- noise drawn outside the noise source ------------------------------------------------------

class GlobalLaplace(PlantedLazyUCB):
    def _draw(self, scale, size, t):
        return np.random.laplace(0.0, scale, size)                    # planted: global laplace


class LegacyState(PlantedLazyUCB):
    def _draw(self, scale, size, t):
        return np.random.RandomState(t).laplace(0.0, scale, size)     # planted: RandomState


class LazyGenerator(PlantedLazyUCB):
    def _draw(self, scale, size, t):
        return np.random.default_rng(t).laplace(0.0, scale, size)     # planted: default_rng


class PythonRandom(PlantedLazyUCB):
    def _draw(self, scale, size, t):
        return np.array([random.expovariate(1 / scale) - random.expovariate(1 / scale)
                         for _ in range(size)])                       # planted: random module


class HeldGenerator(PlantedLazyUCB):
    """A Generator of its own, made when the policy is built (outside any traced block)."""

    def __init__(self, K, **kwargs):
        super().__init__(K, **kwargs)
        self.own = np.random.default_rng(7)

    def _draw(self, scale, size, t):
        return self.own.laplace(0.0, scale, size)


OUTSIDE = [GlobalLaplace, LegacyState, LazyGenerator, PythonRandom]


def _named(bound, cls) -> bool:
    line = where(cls, "planted")
    return any("outside the project's noise source" in f and line in f for f in bound.findings)


@pytest.mark.parametrize("cls", [GlobalLaplace] + [pytest.param(c, marks=pytest.mark.slow)
                                                   for c in OUTSIDE[1:]],
                         ids=lambda c: c.__name__)
def test_noise_outside_the_source_is_a_finding_with_its_line_at_the_small_size(cls):
    """At K = 2, T = 6 (an enumeration): before, ``KeyError: -1`` in ``row_losses`` (the runs
    differ where no cell was moved); now an infinite bound, not a proof, the draw's line named."""
    bound = traced_upper("anytime-lazy-ucb", K=2, T=6, policy_class=cls)
    assert not bound.proof and math.isinf(bound.epsilon)
    assert _named(bound, cls), bound.findings


def test_noise_outside_the_source_is_a_finding_at_the_size_T_mode():
    """At T = 600 the size-T mode runs (the enumeration does not fit): the same finding, with
    its line, and no proof."""
    bound = traced_upper("anytime-lazy-ucb", K=2, T=600, policy_class=GlobalLaplace)
    assert not bound.proof and bound.status != PROOF
    assert _named(bound, GlobalLaplace), bound.findings


def test_a_generator_the_policy_holds_is_named():
    bound = traced_upper("anytime-lazy-ucb", K=2, T=6, policy_class=HeldGenerator)
    assert not bound.proof and math.isinf(bound.epsilon)
    assert any("self.own" in f for f in bound.findings), bound.findings


@pytest.mark.parametrize("cls", [GlobalLaplace] + [pytest.param(c, marks=pytest.mark.slow)
                                                   for c in OUTSIDE[1:] + [HeldGenerator]],
                         ids=lambda c: c.__name__)
def test_noise_outside_the_source_at_the_audit_setting(cls):
    """Through the audit's accountant step (``dpbandits audit --from-accountant``) at
    Anytime-Lazy-UCB's audit setting, K = 2, T = 8: a bound above the claim, no traceback."""
    found = accountant_pairs("anytime-lazy-ucb", K=2, T=8, epsilon=1.0, variant=None,
                             params={}, claimed=Guarantee(1.0), policy_class=cls)
    assert found.audited and math.isinf(found.accounting.epsilon)


# --- state outside the policy, another run's reward --------------------------------------------

class CountsInModuleDict(PlantedLazyUCB):
    """Each run's plays counted in a module-level dict keyed by id(self); every third play's
    reward counted twice (the row costs 2 epsilon where it bites)."""

    def _after_sums(self, t, x, rows, actions):
        book = _BOOKS.setdefault(id(self), {})
        for r in rows.tolist():
            book[r] = book.get(r, 0) + 1
        third = np.array([1.0 if book[r] % 3 == 0 else 0.0 for r in rows.tolist()])
        self.Phi[rows, actions] += third * x                          # planted: module dict


class OtherRunsReward(PlantedLazyUCB):
    def _first(self, x):
        return np.roll(x, 1)                                          # planted: another run's


@pytest.fixture(autouse=True)
def _fresh_books():
    _BOOKS.clear()


def test_state_in_a_module_dict_is_named_at_the_small_size():
    """The enumeration at K = 2, T = 6 compares the state outside the policy object at the start
    and after its traces: the module's dict changed, so no proof, whatever the bound."""
    bound = traced_upper("anytime-lazy-ucb", K=2, T=6, policy_class=CountsInModuleDict)
    assert not bound.proof
    assert any("state outside the policy object changed" in f and "_BOOKS" in f
               for f in bound.findings), bound.findings


def test_a_slot_fed_another_runs_reward_is_no_proof_and_no_crash():
    """Run r's first release holds run r - 1's reward: the runs differ where no cell moved
    (before: ``KeyError: -1``); every row leaks or the schedule moves with the table."""
    bound = traced_upper("anytime-lazy-ucb", K=2, T=6, policy_class=OtherRunsReward)
    assert not bound.proof and bound.epsilon > 1.0


@pytest.mark.slow
@pytest.mark.parametrize("cls", [CountsInModuleDict, OtherRunsReward], ids=lambda c: c.__name__)
def test_the_audit_settings_crashes_are_findings(cls):
    """At the audit setting (K = 2, T = 8), through the audit's accountant step: a bound above
    the claim with pairs to audit, never a traceback."""
    found = accountant_pairs("anytime-lazy-ucb", K=2, T=8, epsilon=1.0, variant=None,
                             params={}, claimed=Guarantee(1.0), policy_class=cls)
    assert found.accounting.epsilon > 1.0 and not found.accounting.proof
    assert found.pairs


# --- exact comparison --------------------------------------------------------------------------

class Mix(PlantedLazyUCB):
    """The epoch sum released with the other arm's epoch sum mixed in at weight 1e-12: every row
    whose reward reaches both costs 1 + 1e-12 (exactly: above the claim of 1)."""

    def _statistic(self, i, j):
        return self.Phi[i, j] + 1e-12 * self.Phi[i, (j + 1) % self.K]


@pytest.mark.parametrize("T", [6, 8])
def test_a_mix_at_weight_1e_12_is_not_holds(T):
    """Before: eps printed 1, "claim holds" (a 1e-9 tolerance). Now the bound is above 1 and
    no reading of it says the claim holds: the bracket is open, the listing's verdict is not
    supported, the audit's accountant step counts it above the claim."""
    bound = traced_upper("anytime-lazy-ucb", K=2, T=T, policy_class=Mix)
    assert bound.proof and 1.0 < bound.epsilon < 1.0 + 1e-11
    claim = make("anytime-lazy-ucb", 2, epsilon=1.0, rng=0, T=T).claim
    assert Bracket(claim.claimed, None, None, bound.epsilon, status=bound.status).verdict \
        == "open"
    assert _verdict(claim, bound) == "claim not supported by the accountant"
    assert not Guarantee(bound.epsilon).implies(Guarantee(1.0))


def test_the_reference_keeps_its_holds():
    """The reference at the same sizes: exactly 1, "holds"."""
    bound = traced_upper("anytime-lazy-ucb", K=2, T=6)
    claim = make("anytime-lazy-ucb", 2, epsilon=1.0, rng=0, T=6).claim
    assert bound.proof and bound.epsilon == 1.0
    assert Bracket(claim.claimed, None, None, bound.epsilon, status=bound.status).verdict \
        == "holds"


def test_costs_are_summed_exactly_and_rounded_up():
    """Ten releases of Lap(10) cost exactly 1 (a float sum of ten 0.1 is 0.9999999999999999);
    1/10 + 1/5 is exactly 3/10, whose nearest float is 0.3 (the float sum 0.1 + 0.2 is
    0.30000000000000004); 1 + 1e-12 stays above 1; an infinite cost is infinite."""
    assert exact_ratio_sum(np.ones(10), np.full(10, 10.0)) == 1.0
    assert 0.1 + 0.2 > 0.3
    assert exact_ratio_sum(np.array([1.0, 1.0]), np.array([10.0, 5.0])) == 0.3
    assert exact_sum([1.0, 1e-12]) > 1.0
    assert exact_sum([0.5, 0.25, 0.25]) == 1.0
    assert math.isinf(exact_sum([1.0, math.inf]))
    assert exact_ratio_sum(np.array([0.0, 1.0]), np.array([1.0, np.inf])) == 0.0
