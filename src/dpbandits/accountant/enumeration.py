"""Enumeration stage: every action sequence forced on the policy round by round, each on every
table with entries in {0, 1} it can tell apart, traced as a prefix tree (:func:`enumerate_traces`),
with the sizes and budgets of a proof (:func:`enumeration_size`, :func:`proof_size`; the
accountant's reference text is in :mod:`dpbandits.accountant`)."""

from __future__ import annotations

import copy
import itertools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import DPBanditsError
from .tracing import Trace, _begin, _Run

PROOF_K = 2
"""Arms (base arms for matroids) at which ``dpbandits list`` proves its bounds."""
PROOF_T = 6
"""Rounds of a bandit's proof at :data:`PROOF_K` (the largest T within :data:`PROOF_BUDGET`:
2^6 action sequences x 2^6 reward sequences); :func:`proof_size` gives every feedback kind's."""
ENUMERATION_BUDGET = 65536
"""Most (action sequence, {0, 1} table the policy can tell apart) pairs :func:`traced_upper`
enumerates per noise seed, each one traced trajectory; above it the bound is an estimate. It
admits a bandit at K = 2, T = 8 (256 x 256: Anytime-Lazy-UCB's audit setting, about 1 s a
seed)."""
PROOF_BUDGET = 4096
"""The budget of :func:`proof_size`, the size ``dpbandits list`` proves at: at K = 2 it admits
T = 6 for a bandit (64 x 64), T = 4 for full information (16 x 256) and T = 5 for a rank-1
matroid that observes round 0 (32 x 128)."""
PROOF_SEEDS = (0, 1)
"""Noise seeds of an enumeration: the noise values are sampled on these seeds, not enumerated."""


def _choices(run: _Run) -> list[np.ndarray]:
    """The actions an enumeration forces at one round: every arm, or every basis."""
    if run.cls.feedback != "semi":
        return [np.asarray(a) for a in range(run.K)]
    matroid = run.policy.matroid
    return [np.asarray(S) for S in itertools.combinations(range(run.K), matroid.rank)
            if matroid.is_basis(S)]


def _seen(cls: type, t: int, option: np.ndarray, K: int) -> list[tuple[int, int]]:
    """The cells whose rewards reach the policy in round t (the accountant feeds them in
    :meth:`_Run.step`): the pulled arm's (bandit), the row (full information), the chosen
    set's (semi-bandit)."""
    if cls.feedback == "full":
        return [(t, a) for a in range(K)]
    return [(t, int(a)) for a in np.atleast_1d(option)]


def _visible(cls: type, rows: list[int], K: int, options: list[np.ndarray],
             sequence: tuple[int, ...]) -> list[tuple[int, int]]:
    """The cells whose rewards reach the policy along ``sequence``: round 0's row where the
    policy observes it (:meth:`_Run.round_zero`), then each round's (:func:`_seen`)."""
    out = [(0, a) for a in range(K)] if rows[0] == 0 else []
    for t, i in enumerate(sequence, start=1):
        out += _seen(cls, t, options[i], K)
    return out


def _binary_tables(rows: list[int], K: int, cells: list[tuple[int, int]]) -> np.ndarray:
    """Every table with entries in {0, 1} on ``cells`` and 0 elsewhere: (2^len(cells), rows, K)."""
    n = len(cells)
    bits = (np.arange(2 ** n)[:, None] >> np.arange(n)[None, :]) & 1
    tables = np.zeros((2 ** n, len(rows), K))
    for j, (t, a) in enumerate(cells):
        tables[:, t - rows[0], a] = bits[:, j]
    return tables


def _describe(table: np.ndarray, cells: list[tuple[int, int]], rows: list[int]) -> str:
    return "rewards " + " ".join(f"x{t},{a}={int(table[t - rows[0], a])}" for t, a in cells)


def enumeration_size(name: str, *, K: int, T: int, variant: str | None = None,
                     policy_class: type | None = None, **params: Any) -> tuple[int, int]:
    """(action sequences, {0, 1} tables the policy can tell apart along each) at K and T."""
    run = _begin(name, epsilon=1.0, K=K, T=1, variant=variant, seed=0,
                 policy_class=policy_class, params=params, tables=None)
    cls, options = run.cls, _choices(run)
    zero = bool(getattr(cls, "observes_round_zero", False))
    rows = list(range(0 if zero else 1, T + 1))
    visible = len(_visible(cls, rows, K, options, (0,) * T))
    return len(options) ** T, 2 ** visible


def enumerate_traces(name: str, *, epsilon: float = 1.0, K: int = PROOF_K, T: int = PROOF_T,
                     variant: str | None = None, seed: int = 0,
                     policy_class: type | None = None, budget: int = ENUMERATION_BUDGET,
                     **params: Any) -> list[Trace] | None:
    """One trace per action sequence of length T (forced round by round), each run at once on
    every table with entries in {0, 1} on the V cells the policy sees along it (0 elsewhere: the
    policy cannot tell the other cells apart), 2^V tables in the runs of one policy; None when
    the sequences times the tables exceed ``budget`` or the policy refuses (raises on) a forced
    action after its start (rounds 1..K, where the reference's policies pull each arm once and
    refuse the other sequences: those are left out and named in the first trace's findings).

    The sequences are traced as a tree: a prefix is traced once and copied where the sequences
    branch (``copy.deepcopy`` of the policy, its generator and the tracer), and each round's
    seen cells are given their values in that round (:meth:`_Run.reveal`). A trace's ``moved``
    names the rounds and the table where its release schedule moved with the table."""
    common = dict(epsilon=epsilon, K=K, T=T, variant=variant, seed=seed,
                  policy_class=policy_class, params=params)
    sequences, tables = enumeration_size(name, K=K, T=T, variant=variant,
                                         policy_class=policy_class, **params)
    if sequences * tables > budget:
        return None
    root = _begin(name, **common, tables=None, slots=int(math.log2(tables)))
    cls, options = root.cls, _choices(root)
    out: list[Trace] = []
    refused, searched = 0, 0

    def describe(run: _Run) -> Callable[[int], str]:
        cells = list(run.tracer.cells)
        return lambda g: "rewards " + " ".join(
            f"x{t},{a}={int(run.bits[g, j])}" for j, (t, a) in enumerate(cells) if a >= 0)

    def grow(run: _Run, prefix: tuple[int, ...]) -> None:
        nonlocal refused, searched
        t = len(prefix) + 1
        if run.diverged or t > T:
            for rest in itertools.product(range(len(options)), repeat=T - len(prefix)):
                sequence = prefix + rest
                if run.diverged:
                    searched += 1
                    found = _table_by_table(name, common, cls, options, sequence,
                                            search=searched <= _SEARCHED)
                else:
                    found = [run.result(run.policy.variant, describe(run))]
                for tr in found:
                    tr.sequence, tr.actions = sequence, [options[i] for i in sequence]
                out.extend(found)
            return
        for i, option in enumerate(options):
            child = _branch(run, prefix, replay) if i < len(options) - 1 else run
            try:
                child.reveal(_seen(cls, t, option, K))
                child.step(t, option)
            except (DPBanditsError, IndexError, ValueError):
                refused += len(options) ** (T - t)   # sequences the policy cannot follow
                if t > len(options):
                    raise _Late() from None
                continue
            grow(child, prefix + (i,))

    def replay(prefix: tuple[int, ...]) -> _Run:
        run = _begin(name, **common, tables=None, slots=root.bits.shape[1])
        for t, i in enumerate(prefix, start=1):
            run.reveal(_seen(cls, t, options[i], K))
            run.step(t, options[i])
        return run

    try:
        grow(root, ())
    except _Late:
        return None             # refused after its start: the enumeration does not cover it
    if not out:
        return None             # every sequence refused
    out.sort(key=lambda tr: tr.sequence)
    if refused:
        out[0].findings.insert(0, f"{refused} of {len(options) ** T} action sequences refused by "
                                  f"the policy in its start (rounds 1..{len(options)}): left out")
    if searched > _SEARCHED:
        out[0].findings.insert(0, f"{searched - _SEARCHED} more action sequences whose tables' "
                                  f"draw sizes diverged: traced on their first table only")
    return out


def _branch(run: _Run, prefix: tuple[int, ...], replay: Callable[[tuple[int, ...]], _Run]) -> _Run:
    """A copy of ``run`` to branch on; a policy whose state cannot be copied (a Python generator
    of public release points) is traced again along ``prefix``."""
    try:
        return copy.deepcopy(run)
    except TypeError:
        return replay(prefix)


class _Late(Exception):
    """A forced action refused after the policy's start."""


_SEARCHED = 4
"""Sequences whose tables' runs diverged that an enumeration traces table by table to name the
table (the others, once the bound is an estimate anyway, on their first table only)."""


def _table_by_table(name: str, common: dict[str, Any], cls: type, options: list[np.ndarray],
                    sequence: tuple[int, ...], search: bool = True) -> list[Trace]:
    """One action sequence whose tables' runs diverged in draw size (the lockstep cannot tell a
    divergence between two tables from one between a table and its probe), traced table by
    table up to the first table whose releases differ from table 0's, which is named (without
    ``search``, on table 0 only)."""
    zero = bool(getattr(cls, "observes_round_zero", False))
    rows = list(range(0 if zero else 1, common["T"] + 1))
    cells = _visible(cls, rows, common["K"], options, sequence)
    tables = _binary_tables(rows, common["K"], cells)
    out: list[Trace] = []
    for g in range(tables.shape[0] if search else 1):
        run = _begin(name, **common, tables=tables[g:g + 1], cells=cells)
        try:
            for t, i in enumerate(sequence, start=1):
                run.step(t, options[i])
        except (DPBanditsError, IndexError, ValueError) as e:
            run.tracer.leak_all(f"the policy refused the sequence on this table ({e})")
            run.diverged = True
        out.append(run.result(run.policy.variant))
        if out[-1].signature() != out[0].signature():
            moved, first = _describe(tables[g], cells, rows), _describe(tables[0], cells, rows)
            out[-1].moved = (f"the releases moved with the table ({moved}; with {first} they "
                             f"differ)",)
            break
    return out


def proof_size(name: str, *, K: int = PROOF_K, variant: str | None = None,
               policy_class: type | None = None, budget: int = PROOF_BUDGET,
               **params: Any) -> tuple[int, int] | None:
    """(K, T) of the proof ``dpbandits list`` prints for algorithm ``name``: the largest T whose
    enumeration at K fits ``budget`` (T = 6 for a bandit at K = 2, 4 for full information, 5
    for the matroid policies on their default rank-1 matroid), or None when not even T = 1
    fits."""
    best = None
    for T in range(1, 32):
        sequences, tables = enumeration_size(name, K=K, T=T, variant=variant,
                                             policy_class=policy_class, **params)
        if sequences * tables > budget:
            break
        best = (K, T)
    return best
