"""The alignment replayed at size T (docs/accountant.md#fail-closed): on sampled neighbouring
pairs, the noise shifted as the proof says makes the two runs' outputs identical at a cost within
the bound, or the replay names the round and the release's line where it does not.

Kinds: exact (deterministic lockstep runs at a fixed seed; the planted breaks are those of
tests/test_accountant_sight.py). The default run replays the reference and two breaks at
T = 600; ``-m slow`` DP-UCB's next item on a switch.
"""

from __future__ import annotations

import pytest

from dpbandits.accountant.replay import _switch_rows, replay
from planted_lazy_ucb import PlantedLazyUCB, where
from test_accountant_sight import _BOOKS, ByView, InModuleGlobal, NextItemOnSwitch

T = 600


@pytest.fixture(autouse=True)
def _fresh_books():
    _BOOKS.clear()


def test_the_reference_replays_without_a_finding():
    assert replay("anytime-lazy-ucb", epsilon=1.0, variant=None, K=2, T=T, bound=1.0) == []


def test_a_threshold_on_the_raw_mean_breaks_the_alignment_at_its_round():
    """On the table with arm 0 at 1, a neighbour of round 3 or 4 moves arm 0's first epoch mean
    from 1 to 1/2, across the planted 0.9: the released mean differs between the runs, and the
    next argmax reads it (round 5); the release named is the epoch release."""
    found = replay("anytime-lazy-ucb", epsilon=1.0, variant=None, K=2, T=T,
                   policy_class=ByView, bound=1.0)
    assert found and "round 5" in found[0]
    assert where(PlantedLazyUCB, "self._mean(i, j, release(") in found[0], found


def test_a_doubled_reward_after_a_streak_costs_above_the_bound():
    """The switch right after the longest streak is a replayed row: its reward is in the epoch
    sum twice, so the row costs 2 > 1."""
    found = replay("anytime-lazy-ucb", epsilon=1.0, variant=None, K=2, T=T,
                   policy_class=InModuleGlobal, bound=1.0)
    assert found and "costs 2 > 1" in found[0], found


@pytest.mark.slow
def test_dp_ucb_next_item_on_a_switch_costs_above_the_bound():
    found = replay("dp-ucb", epsilon=1.0, variant="corrected", K=2, T=T,
                   policy_class=NextItemOnSwitch, bound=1.0)
    assert found and "> 1 at row" in found[0], found


def test_switch_rows_are_the_rounds_after_the_longest_streaks():
    """Actions 0 0 0 1 1 0 (rounds 1..6): streaks of 3 (switch at round 4) and 2 (round 6)."""
    assert _switch_rows([0, 0, 0, 1, 1, 0], K=2, T=6, n=2) == [4, 6]
    assert _switch_rows([0, 0, 0, 1, 1, 0], K=2, T=6, n=1) == [4]
