"""The alignment replayed at the user's size: an independent cross-check of a size-T proof
(docs/accountant.md#fail-closed).

The proof claims a randomness alignment: on two neighbouring tables (one row changed), each
release's noise shifted by the change of its statistic makes every output of the two runs
identical, at a total cost (the sum over the releases of |change| / scale) at most the bound.
:func:`replay` checks that claim on sampled neighbouring pairs at K and T, with the lockstep
machinery of :mod:`.lockstep`: the policy runs on a few tables with entries in {0, 1} and, in
lockstep, on each neighbour that moves one cell of a chosen row to the other end of [0, 1];
every release hands every run the first run's noisy value (the shift of the proof), and the
actions, the decisions' inputs and the published values of the runs are compared exactly.

The tables are chosen from the ends of the rewards' range: one arm at 1 and the others at 0
(the played arm's epoch means sit at 1 and the others' at 0, so a neighbour of an early round
moves a short epoch's mean across every constant in between; long streaks of one arm, then
switches), and every reward 1. The rows changed are the first rounds after the start, where
the epochs are short (a neighbour moves an epoch mean by 1/2 or 1/4), and, on each table, the
rounds where the policy switches arms right after its longest streaks (its own actions on the
table, from a plain run with the same draws). A mismatch, or a row whose replayed cost exceeds the bound, is a finding with its
round and the line of the release that holds the changed row: the size-T result is then not a
proof. The replay samples pairs; it does not enumerate them (a check that can fail, not a proof
on its own).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from ..errors import DPBanditsError
from ..reference.registry import canonical, get
from .composition import row_losses
from ..reference.noise import LockstepGenerator, Tracer
from .lockstep import _H
from .tracing import TRACE_CELLS, _begin, build_policy

PAIRS_ROWS = 3
"""Rows changed per table (each in every arm's cell: K neighbours per row)."""
STREAK_ROWS = 2
"""Of them, the rounds right after the policy's longest streaks of one arm on the table."""


def _tables(rows: int, K: int) -> dict[str, np.ndarray]:
    """The tables of the replay (module docstring), each (rows, K) with entries in {0, 1}."""
    first = np.zeros((rows, K))
    first[:, 0] = 1.0
    return {"arm 0 at 1, the others at 0": first, "every reward 1": np.ones((rows, K))}


def _switch_rows(arms: np.ndarray, K: int, T: int, n: int) -> list[int]:
    """The rounds (1-based) where the action ``arms`` (T,) changes right after the ``n`` longest
    streaks of one arm."""
    streaks: list[tuple[int, int]] = []           # (length, round of the switch)
    run = 1
    for t in range(1, len(arms)):
        if arms[t] == arms[t - 1]:
            run += 1
        else:
            streaks.append((run, t + 1))
            run = 1
    streaks.sort(reverse=True)
    return [t for _, t in streaks[:n] if K < t <= T]


def replay(name: str, *, epsilon: float, variant: str | None, K: int, T: int,
           policy_class: type | None = None, params: dict[str, Any] | None = None,
           bound: float = float("inf"), seed: int = 0) -> list[str]:
    """Findings of the alignment replayed on sampled neighbouring pairs at K and T (module
    docstring): each names the table, the row changed, the round where the outputs of the two
    runs differ (or the row's replayed cost above ``bound``) and the line of the release that
    holds the changed row. Empty when every pair's outputs agree exactly at a cost within the
    bound. Per table: one plain run (its actions give the switches), then one lockstep run of
    the table with its neighbours."""
    name = canonical(name)
    params = dict(params or {})
    cls = get(name) if policy_class is None else policy_class
    if cls.feedback != "bandit":
        return []
    zero = bool(getattr(cls, "observes_round_zero", False))
    rows = list(range(0 if zero else 1, T + 1))
    common = dict(epsilon=epsilon, K=K, T=T, variant=variant, seed=seed,
                  policy_class=policy_class, params=params)
    early = {t for t in (K + 1, K + 2, 2 * K + 3) if t <= T} or {T}
    out: list[str] = []
    for label, table in _tables(len(rows), K).items():
        try:
            arms = _played(name, cls, common, table, rows)
        except (DPBanditsError, IndexError, ValueError) as e:
            return [f"the alignment replay could not run at K = {K}, T = {T} ({e})"]
        chosen = sorted(early | set(_switch_rows(arms, K, T, STREAK_ROWS)))
        cells = [(t, a) for t in chosen for a in range(K)]
        cells = cells[:max(1, TRACE_CELLS // table.size - 1)]
        run = _begin(name, **common, tables=table[None], cells=cells)
        for t in range(1, T + 1):
            run.step(t)
            if run.stopped:
                break
        out += _mismatches(run.result(run.policy.variant), label, bound)
        if out:
            break                   # one pair that breaks the alignment is enough
    return out


def _played(name: str, cls: type, common: dict[str, Any], table: np.ndarray,
            rows: list[int]) -> np.ndarray:
    """The actions (T,) of one plain run of the policy on ``table`` with the lockstep's noise
    (the same draws as the first run of the traced replay: it takes the same actions)."""
    rng = LockstepGenerator(common["seed"], 1, Tracer(1, [], _H))
    policy = build_policy(name, cls, common["policy_class"], K=common["K"], T=common["T"],
                          runs=1, rng=rng, variant=common["variant"],
                          epsilon=common["epsilon"], params=common["params"])
    if rows[0] == 0:
        policy.observe(0, None, table[:1, :].copy())
    out = np.zeros(common["T"], np.int64)
    with np.errstate(all="ignore"):
        for t in range(1, common["T"] + 1):
            a = np.asarray(policy.act(t)).reshape(1)
            policy.observe(t, a, table[t - rows[0], a].copy())
            out[t - 1] = a[0]
    return out


def _mismatches(tr, table: str, bound: float) -> list[str]:
    """The findings of one replayed trace: where the runs' outputs differ, and rows that cost
    more than ``bound``."""
    out = []
    for step, cells, what in tr.leak_sites[:2]:
        line = _release_line(tr, cells, step)
        out.append(f"the alignment replayed at T = {tr.T} fails: on the table '{table}' with "
                   f"{_cells(cells)} changed, round {step}: {what}; the outputs of the two runs "
                   f"differ with the noise shifted as the proof says{line}")
    if not out and bound < float("inf"):
        for row, losses in row_losses(tr, exact=True).items():
            cost = sum(losses, Fraction(0)) if all(isinstance(x, Fraction) for x in losses) \
                else float("inf")
            if cost > Fraction(bound):
                line = _release_line(tr, tuple((row, a) for a in range(tr.K)), tr.T)
                out.append(f"the alignment replayed at T = {tr.T} costs {float(cost):.6g} > "
                           f"{bound:.6g} at row {row} on the table '{table}': the bound does "
                           f"not cover this pair{line}")
                break
    return out


def _cells(cells) -> str:
    return " ".join(f"x{t},{a}" for t, a in cells[:4]) or "a cell"


def _release_line(tr, cells, step: int) -> str:
    """' (the release at file:line, round r)' of the last release up to ``step`` whose
    statistic holds one of ``cells``, or ''."""
    wanted = {tuple(c) for c in cells}
    for release in reversed(tr.releases):
        if release.step <= step and any(cell in wanted for c in release.coefficients
                                        for cell in c):
            return f" (the release at {release.line}, round {release.step})"
    return ""
