"""Size-T stage: the alignment's cost at the K and T the user asks about, by the per-arm schedule
(docs/accountant.md#proof-at-your-size).

The lockstep trace needs one run per probed cell (O(T^2 K) work); at T = 10^6 it cannot run.
Here the policy runs a few forced action sequences at once, one run each, and every
reward-derived value carries its linear form over the cells it came from
(:class:`~dpbandits.reference.symbolic.SymbolicTracer`): a release charges each cell its cost,
|coefficient| / scale, in one pass. The cost of every cell is then exact for the traced
sequences. Every sequence is covered by the **per-arm schedule lemma**, checked, not assumed:

* *stream form*: a cell's cost on any sequence is a function of its arm a, its position n in
  arm a's stream of observations and the number m of observations of arm a the sequence makes:
  the cost of position n on the sequence that holds arm a, taken when that sequence's count of
  arm a reached m;
* *round form*: a cell's cost is a function of its arm and its round (the tree counters, which
  take one item per arm in every round): the cost of that cell on the sequence that holds its
  arm.

Costs only accumulate (every term |c| / b is non-negative), so under either form the largest
cost of a cell on the hold sequences at size T bounds every cell of every sequence of length T.
The lemma is checked on every action sequence at the enumerated size (:func:`symbolic_run` on
all of them, cross-checked cell by cell against the lockstep enumeration's costs) and on the
traced sequences at size T (:func:`size_sequences`: each arm held, round-robin, two seeded random
sequences); with ``derive``, :func:`symbolic_run` also runs the dependence analysis
(:class:`~dpbandits.reference.locality.Locality`) that derives the stream form, or the round
form where some state is updated in every slot (docs/accountant.md#round-form), from the code,
which makes the bound a proof (docs/accountant.md#proof-at-your-size).
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import DPBanditsError
from ..reference import noise
from ..reference.registry import canonical, get
from ..reference.symbolic import SymbolicGenerator, SymbolicTracer
from ..reference.formed import Formed
from ..reference.forms import Leaf
from ..reference.locality import Locality
from ..reference.sight import Outside
from ..reference.watched import watch
from . import coverage
from .tracing import build_policy

_TOLERANCE = 1e-14     # rounding of a few costs, far below a 1e-12 share of a reward
_leaves = np.frompyfunc(Leaf, 1, 1)
"""Cell ids to an object array of their leaves."""


def _start(K: int) -> list[int]:
    return list(range(K))


def hold_label(start: tuple[int, ...], a: int) -> str:
    return f"hold arm {a} after start {' '.join(map(str, start))}"


def size_sequences(K: int, T: int, starts: list[tuple[int, ...]], seed: int = 0
                   ) -> list[tuple[str, np.ndarray]]:
    """The sequences traced at size T: for each start (the actions of rounds 1..K the policy
    accepts), each arm held to the end; then round-robin after the first start, the arms in
    turn in streaks of doubling length after the last start (a switch after each length of
    streak, up to T / 2K), and two seeded random sequences after seeded starts (uniform, and
    arm 0 favoured 3 to 1)."""
    out = [(hold_label(st, a), np.array(list(st) + [a] * (T - K))) for st in starts
           for a in range(K)]
    out.append(("round-robin", np.array(list(starts[0]) + [t % K for t in range(T - K)])))
    streaks = [a for k in range(max(T, 2).bit_length()) for a in range(K) for _ in range(2 ** k)]
    out.append(("streaks of 1, 2, 4, ... rounds of each arm in turn",
                np.array(list(starts[-1]) + streaks[:T - K])))
    rng = np.random.default_rng(seed)
    head = list(starts[int(rng.integers(len(starts)))])
    out.append((f"uniform random (seed {seed})", np.array(head + rng.integers(0, K, T - K).tolist())))
    p = np.full(K, 1.0)
    p[0] = 3.0
    p /= p.sum()
    head = list(starts[int(rng.integers(len(starts)))])
    out.append((f"arm 0 favoured 3:1 (seed {seed})", np.array(head + rng.choice(K, T - K, p=p).tolist())))
    return [(label, s[:T]) for label, s in out]


def _holds(labels: list[str], sequences: np.ndarray, K: int) -> dict[tuple[tuple[int, ...], int], int]:
    """(start, arm) -> the run that holds that arm after that start."""
    out = {}
    for i, label in enumerate(labels):
        if label.startswith("hold arm "):
            st = tuple(int(x) for x in sequences[i, :K])
            out[(st, int(sequences[i, -1]))] = i
    return out


@dataclass
class SymbolicRun:
    """The cost of every cell of every traced sequence (``cost[s, t]``: the cell of round t,
    arm ``sequences[s, t - 1]``), with the snapshots the lemma's check needs, and what the
    checks of the code found."""

    name: str
    K: int
    T: int
    labels: list[str]
    sequences: np.ndarray
    cost: np.ndarray
    snapshots: dict[tuple[int, int], np.ndarray]
    last_step: np.ndarray
    last_site: np.ndarray
    sites: list[str]
    findings: list[str] = field(default_factory=list)
    laws: list[str] = field(default_factory=list)
    nonlinear: list[str] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)
    releases: int = 0
    seconds: float = 0.0
    refused: str = ""
    locality: list[str] | None = None
    """What the dependence analysis of the per-arm schedule found (empty: derived on every
    line that ran; None: not run)."""
    derived_form: str | None = None
    """The form of the lemma the analysis derives (``stream``, or ``round`` where some state is
    updated in every slot); None when it did not run."""

    @property
    def clean(self) -> bool:
        return not (self.findings or self.laws or self.nonlinear or self.lost or self.refused)

    def problems(self) -> list[str]:
        out = [f"at T = {self.T}: {f}" for f in self.laws + self.findings]
        out += [f"at T = {self.T}: nonlinear: {m}: not a linear form" for m in self.nonlinear]
        out += [f"at T = {self.T}: provenance lost: {m}" for m in self.lost]
        if self.refused:
            out.append(f"at T = {self.T}: {self.refused}")
        return out

    def where(self, s: int, t: int) -> str:
        k = int(self.last_site[s, t])
        site = f", {self.sites[k]}" if k >= 0 else ""
        return f"last release containing it: round {int(self.last_step[s, t])}{site}"


def _hold_rounds(sequences: np.ndarray, s: int, a: int) -> np.ndarray:
    return np.flatnonzero(sequences[s] == a) + 1


def _snapshot_rounds(sequences: np.ndarray, holds: dict, K: int) -> dict[int, set[int]]:
    """The rounds at which each hold sequence's costs are kept: where its count of the held arm
    reaches each count m of that arm on a traced sequence with the same start."""
    out: dict[int, set[int]] = {h: set() for h in holds.values()}
    for (st, a), h in holds.items():
        rounds = _hold_rounds(sequences, h, a)
        for s in range(sequences.shape[0]):
            if tuple(sequences[s, :K]) != st:
                continue
            m = int(np.sum(sequences[s] == a))
            if 0 < m <= rounds.size:
                out[h].add(int(rounds[m - 1]))
    return out


def symbolic_run(name: str, *, epsilon: float, K: int, T: int, variant: str | None,
                 params: dict[str, Any], policy_class: type | None,
                 sequences: list[tuple[str, np.ndarray]], seed: int = 0,
                 derive: bool = False, covered: Any = None) -> SymbolicRun:
    """Run every sequence at once (one run each) with linear provenance; the cost of each cell,
    exact, and the checks' findings. With ``derive``, the dependence analysis of the per-arm
    schedule runs on every round (:class:`~dpbandits.reference.locality.Locality`); with
    ``covered`` (a :class:`~dpbandits.accountant.coverage.Coverage`), the arcs of the
    algorithm's code are recorded into it."""
    started = time.perf_counter()
    name = canonical(name)
    cls = get(name) if policy_class is None else policy_class
    if cls.feedback != "bandit":
        raise DPBanditsError("the size-T mode covers bandit feedback only")
    labels = [label for label, _ in sequences]
    seqs = np.stack([np.asarray(s, dtype=np.int64) for _, s in sequences])
    R = seqs.shape[0]
    holds = _holds(labels, seqs, K)
    snap_at: dict[int, list[int]] = {}
    for h, rounds in _snapshot_rounds(seqs, holds, K).items():
        for t in rounds:
            snap_at.setdefault(t, []).append(h)
    tracer = SymbolicTracer(R, T)
    rng = SymbolicGenerator(seed, tracer)
    policy = build_policy(name, cls, policy_class, K=K, T=T, runs=R, rng=rng, variant=variant,
                          epsilon=epsilon, params=params)
    rewards = np.random.default_rng(seed + 1)
    W = T + 1
    base = np.arange(R) * W
    tracer.arms.reshape(R, W)[:, 1:] = seqs
    snapshots: dict[tuple[int, int], np.ndarray] = {}
    cost = tracer.cost.reshape(R, W)
    refused = ""
    outside = before = None
    checker = Locality(policy, R, K, T, W, tracer.arms) if derive else None
    tracer.locality = checker
    recording = coverage.collecting(covered) if covered is not None else contextlib.nullcontext()
    with noise.tracing(tracer), np.errstate(all="ignore"), recording, coverage.recording():
        for t in range(1, T + 1):
            tracer.step = t
            actions = seqs[:, t - 1].copy()
            try:
                watch(policy)
                tracer.phase = "act"
                if checker is not None:
                    checker.step = t
                policy.act(t)
                tracer.phase = "observe"
                x = rewards.random(R).view(Formed)
                x._f = _leaves(base + t)
                watch(policy)
                if checker is None:
                    policy.observe(t, actions, x)
                else:
                    t_in, a_in = checker.begin(t, actions)
                    try:
                        policy.observe(t_in, a_in, x)
                    finally:
                        checker.end(t, actions)
            except (DPBanditsError, IndexError, ValueError, TypeError) as e:
                refused = f"the policy refused a traced sequence at round {t} ({e})"
                break
            if t == min(K, T) and outside is None:
                outside = Outside(policy)
                before = outside.snapshot()
            for h in snap_at.get(t, ()):
                snapshots[(h, t)] = cost[h].copy()
            if tracer.leaks and t < T:
                refused = (f"stopped at round {t}, after a read of an unreleased value (every "
                           f"later cell of the sequences is not traced)")
                break
        if outside is not None:
            moved = Outside.changed(before, outside.snapshot())
            if moved:
                tracer.findings.append(
                    f"state outside the policy object changed after the start: "
                    f"{', '.join(moved[:3])}{' and more' if len(moved) > 3 else ''} (the "
                    f"analysis does not follow it: docs/accountant.md#fail-closed)")
    tracer.finish()
    laws = [f for f in tracer.findings if "not a declared law as drawn" in f]
    leaks = [f for f in tracer.findings if f not in laws]
    return SymbolicRun(name, K, T, labels, seqs, cost.copy(), snapshots,
                       tracer.last_step.reshape(R, W), tracer.last_site.reshape(R, W),
                       list(tracer.sites), leaks, laws, list(tracer.nonlinear_maps),
                       list(tracer.lost_notes), tracer.released_values,
                       time.perf_counter() - started, refused,
                       None if checker is None else list(checker.findings),
                       None if checker is None else checker.form)


def _close(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    both_inf = np.isinf(a) & np.isinf(b)
    with np.errstate(invalid="ignore"):
        return both_inf | (np.abs(a - b) <= _TOLERANCE * (1.0 + np.abs(b)))


def check_lemma(run: SymbolicRun, form: str) -> str | None:
    """None when every cell of every traced sequence costs what the per-arm schedule says
    (``form``: ``stream`` or ``round``, module docstring); else the first cell that does not,
    with the sequence, the cell, both costs and the last release containing it."""
    seqs, K = run.sequences, run.K
    holds = _holds(run.labels, seqs, K)
    for s in range(seqs.shape[0]):
        st = tuple(int(x) for x in seqs[s, :K])
        for a in range(K):
            rounds = _hold_rounds(seqs, s, a)
            m = rounds.size
            if m == 0:
                continue
            h = holds.get((st, a))
            if h is None:
                return f"{run.labels[s]}: no traced sequence holds arm {a} after its start"
            hold = _hold_rounds(seqs, h, a)
            if form == "stream":
                if m > hold.size:
                    return (f"{run.labels[s]}: arm {a} is observed {m} times, more than on "
                            f"the hold sequence ({hold.size})")
                reference = run.snapshots.get((h, int(hold[m - 1])))
                if reference is None:
                    return f"{run.labels[s]}: no snapshot of hold arm {a} at count {m}"
                expected = reference[hold[:m]]
            else:
                expected = run.cost[h, rounds]
            got = run.cost[s, rounds]
            ok = _close(got, expected)
            if not ok.all():
                k = int(np.flatnonzero(~ok)[0])
                t = int(rounds[k])
                key = (f"arm {a}'s observation {k + 1} of {m}" if form == "stream"
                       else f"round {t}")
                return (f"{run.labels[s]}, cell x{t},{a} ({key}): cost {got[k]:.6g}, "
                        f"{expected[k]:.6g} on {run.labels[h]}"
                        f"{' at the same count' if form == 'stream' else ''} "
                        f"({run.where(s, t)})")
    return None


def lemma(run: SymbolicRun) -> tuple[str | None, list[str]]:
    """(the form of the per-arm lemma that holds on every traced sequence, or None; why each
    form fails)."""
    why = []
    for form in ("stream", "round"):
        miss = check_lemma(run, form)
        if miss is None:
            return form, why
        why.append(f"per-arm schedule ({form} form) fails: {miss}")
    return None, why


def bound(run: SymbolicRun) -> tuple[float, tuple[int, int]]:
    """The largest cell cost on the hold sequences (every traced sequence's cells are no larger
    when the lemma holds), and its cell (round, arm)."""
    holds = sorted(_holds(run.labels, run.sequences, run.K).values())
    costs = run.cost[holds, 1:]
    h, t = np.unravel_index(int(np.argmax(costs)), costs.shape)
    return float(costs[h, t]), (int(t) + 1, int(run.sequences[holds[h], t]))
