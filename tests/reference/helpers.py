"""What several reference tests share: driving a one-run policy over a table, the per-item privacy
loss of a hybrid mechanism (DP-UCB, DP-UCB-BOUND), the anytime check, and the lazy, forgetful
epochs of Anytime-Lazy-UCB and Lazy-DP-TS (journal version, Alg. 1 and Alg. 3)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpbandits.reference import Table, replace_row, simulate, spec
from dpbandits.reference.noise import ScriptedNoise

HYBRID_VARIANTS = ("corrected", "paper")
HYBRID_SPLIT = {"corrected": "chan", "paper": "paper"}
"""The hybrid mechanism's budget split of each variant of DP-UCB and DP-UCB-BOUND."""


def drive(policy, table: np.ndarray) -> np.ndarray:
    """Run a one-run policy over a (T, K) table; return its actions."""
    actions = []
    for t in range(1, table.shape[0] + 1):
        a = policy.act(t)
        policy.observe(t, a, table[t - 1, a])
        actions.append(int(a[0]))
    return np.array(actions)


def drive_runs(policy, rewards: np.ndarray) -> np.ndarray:
    """Run a policy over rewards of shape (T, runs, K); return the actions, shape (runs, T)."""
    T = rewards.shape[0]
    rows = np.arange(policy.runs)
    actions = np.empty((policy.runs, T), dtype=np.int64)
    for t in range(1, T + 1):
        a = policy.act(t)
        actions[:, t - 1] = a
        policy.observe(t, a, rewards[t - 1, rows, a])
    return actions


def is_power(n: int) -> bool:
    return n & (n - 1) == 0


def item_losses(scales: list[float]) -> np.ndarray:
    """Privacy loss of each item of one hybrid mechanism whose m-th insertion drew at scales[m-1]:
    the sum of 1/scale over the noised sums containing the item. Draw m noises the logarithmic
    block (m/2, m] at m = 2^j, else the binary node of level i = lowest set bit of
    tau = m - 2^k, covering items m - 2^i + 1 .. m (Sec. 2 (logarithmic mechanism)-3.4)."""
    loss = np.zeros(len(scales) + 1)
    for m, scale in enumerate(scales, start=1):
        if is_power(m):
            first = m // 2 + 1
        else:
            tau = m - (1 << (m.bit_length() - 1))
            first = m - (tau & -tau) + 1
        loss[first: m + 1] += 1 / scale
    return loss[1:]


def assert_one_mechanism_changes(make_policy, table: np.ndarray, tau: int, noise: list[float]) -> None:
    """Replace row tau of the table; with the action history of a run on the table held fixed
    and the same scripted noise, only the hybrid mechanism of arm a_tau releases different sums,
    from round tau on. ``make_policy(rng)`` builds a one-run DP-UCB or DP-UCB-BOUND."""
    actions = drive(make_policy(ScriptedNoise(values=noise)), table)
    changed = replace_row(table, tau, 1.0 - table[tau - 1])
    a_tau = actions[tau - 1]
    policies = [make_policy(ScriptedNoise(values=noise)) for _ in range(2)]
    for t, a in enumerate(actions, start=1):
        for policy, x in zip(policies, (table, changed)):
            policy.observe(t, np.array([a]), x[t - 1, [a]])
        differs = policies[0].H.value[0] != policies[1].H.value[0]
        assert list(np.flatnonzero(differs)) == ([a_tau] if t >= tau else [])


def assert_anytime(name: str, table: np.ndarray, short: int, *, seed: int = 1, **params) -> None:
    """The algorithm takes no horizon: coupled runs to ``short`` and to len(table) rounds agree
    on the first ``short`` actions, and the policy does not declare that it needs a horizon."""
    f = spec(name, table.shape[1], **params)
    first = simulate(f, Table(table), short, seed=seed, record_actions=True)
    whole = simulate(f, Table(table), table.shape[0], seed=seed, record_actions=True)
    np.testing.assert_array_equal(first.actions[0], whole.actions[0, :short])
    assert whole.pulls.sum() == table.shape[0]
    assert not f(1, np.random.default_rng(0)).needs_horizon


# --- lazy, forgetful epochs (Anytime-Lazy-UCB and Lazy-DP-TS) ----------------------------------

def assert_epoch_schedule(policy, rng, table: np.ndarray) -> None:
    """Drive ``policy`` (one run, scripted noise ``rng``) over ``table``: mu~_j changes only when
    arm j's pull count n_j becomes 2^m - 1, with one Lap(1/eps) draw at scale 1 / eps = 1; with
    zero noise it is the mean of pulls 2^r .. 2^(r+1) - 1 (1-based) only, and O_j = 2^r."""
    K, T = table.shape[1], table.shape[0]
    history: dict[int, list[float]] = {j: [] for j in range(K)}
    for t in range(1, T + 1):
        a = policy.act(t)
        j = int(a[0])
        draws_before, mu_before = rng.n_draws, policy.mu_tilde.copy()
        policy.observe(t, a, table[t - 1, a])
        history[j].append(table[t - 1, j])
        n = len(history[j])
        completes = (n + 1) & n == 0                       # n = 2^m - 1
        assert rng.n_draws - draws_before == (1 if completes else 0)
        assert completes or policy.mu_tilde[0, j] == mu_before[0, j]
        r = int(policy.r[0, j])
        last_epoch = history[j][2 ** r - 1: 2 ** (r + 1) - 1]
        assert policy.mu_tilde[0, j] == pytest.approx(np.mean(last_epoch))
        assert policy.O[0, j] == 2 ** r
    assert sum(len(h) for h in history.values()) == T
    assert rng.n_draws == sum(int(math.floor(math.log2(len(h) + 1))) for h in history.values())
    assert all(scale == 1.0 for scale, _ in rng.calls)


def assert_unfinished_epochs_unused(name: str, table: np.ndarray, *, seed: int = 5,
                                    **params) -> None:
    """Rewards in epochs not complete by T are never used: flipping every one of them leaves
    the actions of a seeded run unchanged (coupled by the seed: the released statistics, and so
    the generator's stream, do not change)."""
    T, K = table.shape
    f = spec(name, K, **params)
    actions = simulate(f, Table(table), T, seed=seed, record_actions=True).actions[0]
    altered = table.copy()
    for j in range(K):
        pulls = np.flatnonzero(actions == j) + 1          # rounds in which j was pulled
        last_complete = 2 ** int(math.floor(math.log2(pulls.size + 1))) - 1
        altered[pulls[last_complete:] - 1, j] = 1.0 - altered[pulls[last_complete:] - 1, j]
    assert (altered != table).any()
    again = simulate(f, Table(altered), T, seed=seed, record_actions=True).actions[0]
    np.testing.assert_array_equal(actions, again)
