"""What the accountant's checks of the code cost: its proofs timed with and without them; and
its bound at the user's size, by the per-arm schedule (a bound given a checked lemma, not a
proof).

Usage: python benchmarks/accountant.py [--repeats N] [--size-T T] [--arms K]
       [--size ALGORITHM ...] [--skip-checks] [--sequences-only] [--baseline-src DIR]

The size-T part runs each algorithm of ``--size`` at ``--arms`` K and ``--size-T`` T in a
process of its own, on this package and, with ``--baseline-src DIR`` (``git archive COMMIT src
| tar -x -C DIR``, then ``DIR/src``), on the older package right after it, and prints both rows
with the child's wall and CPU seconds and whether their outputs (status, epsilon, findings,
scope, assumption and per-row costs; with ``--sequences-only`` the lemma, the bound, the
findings and a hash of every traced cell's cost) are identical. ``--sequences-only`` times the
size-T stage alone (:func:`dpbandits.accountant.size.symbolic_run` with the dependence analysis
on the sequences of :func:`~dpbandits.accountant.size.size_sequences` after the start
0..K-1), the part of the bound that grows with T, at any K (the whole bound needs an
enumeration at the small size, which does not fit at K >= 4).

A proof (docs/accountant.md#what-a-proof-is) enumerates every action sequence on every {0, 1}
table and, while the policy runs, checks the code: the policy's state and feedback are watched
arrays (information flow and noise laws) and the line arcs of its code are recorded (coverage).
The baseline is the same enumeration with the two costliest parts switched off in this process
(the policy's state left plain, no arcs recorded; the feedback and the draws are still watched):
a measure of what the checks cost, not a second accountant (its bounds are not compared). It times, best of N:

* ``dpbandits list``'s bounds: every private variant at its proof size (the target is 10 s);
* Anytime-Lazy-UCB's proof at its audit setting, K = 2, T = 8 (256 x 256 per seed).

It prints a Markdown table of seconds with and without the checks, and their ratio.

Then, for each algorithm of ``--size`` (default: Anytime-Lazy-UCB and Lazy-DP-TS), the bound
at K = 2 and ``--size-T`` (default 10^6) by the per-arm schedule
(docs/accountant.md#proof-at-your-size), once: its status, its epsilon, its seconds and this process's CPU seconds, beside
what the lockstep accountant gives there (its trace's size: it raises TooLargeToTrace above
6e7 cells). The issue's target was a proof at T = 10^6 within a minute on 2 cores; what is
reached is the per-arm bound (docs/accountant.md#proof-at-your-size), which is not a proof.

Measured (this machine, shared; K = 2; the lockstep accountant gives no bound at either size):

| algorithm | T | status | eps | seconds | CPU seconds | load average |
|---|---:|---|---:|---:|---:|---:|
| anytime-lazy-ucb | 10^5 | per-arm bound | 1 | 29.6 | 12.9 | 5.6 |
| lazy-dp-ts | 10^5 | per-arm bound | 1 | 46.0 | 16.2 | 5.6 |
| anytime-lazy-ucb | 10^6 | per-arm bound | 1 | 868.3 | about 130 (from ps) | about 13 |
| anytime-lazy-ucb | 10^6 | per-arm bound | 1 | 402.2 | 135.4 | 7.3 |

(Measured when this status was still printed as a proof; the computation is the same.)

With the dependence analysis that derives the per-arm schedule from the code (a proof at
this size; docs/accountant.md#proof-at-your-size), Anytime-Lazy-UCB, K = 2, measured the same
afternoon on a heavily shared machine (``--skip-checks --size-T T --size anytime-lazy-ucb``;
"before" is the code without the analysis, run from a snapshot of the main branch):

| T | before: status | seconds | CPU seconds | load | after: status | seconds | CPU seconds | load |
|---:|---|---:|---:|---:|---|---:|---:|---:|
| 10^4 | per-arm bound | 28.2 | 4.2 | 8.9 | proof | 50.6 | 6.5 | 12.4 |
| 10^5 | per-arm bound | 134.5 | 20.2 | 9.1 | proof | 340.3 | 46.8 | 13.5 |

(Earlier the same day, at load 1.1, before: 3.1 s and 2.9 CPU seconds at 10^4, 14.5 s and
14.4 CPU seconds at 10^5.) The analysis costs about 1.5x (10^4) to 2.3x (10^5) CPU: every
read and write of the per-(run, arm) state and every operation on a value derived from it goes
through one more Python layer, and the state is compared before and after every call.

Measured on the code without the analysis (ba5f00e): an epoch sum built one reward at a time
became a run of cell ids in one growing buffer
(``forms._Run``: one small object per sum instead of two per reward, so the garbage collector
no longer walks millions of live forms, and a release flattens it in one numpy pass) and the
forms' array hook got quick paths (no input with a form; no ``np.shape`` through the array
function hook). The same bounds, statuses and findings: tests/test_forms.py compares the two
representations bit for bit, and the accountant's results (bounds, statuses, scopes, findings,
every cell's cost) were compared equal before and after on Anytime-Lazy-UCB, Lazy-DP-TS, DP-SE,
Private-UCB and AdaP-KLUCB at T = 1000 (K = 2 and 3) and on the size tests' five planted
variants at T = 10^4. Anytime-Lazy-UCB, K = 2, before and after, measured in
one session with ``python benchmarks/accountant.py --skip-checks --size-T T --size
anytime-lazy-ucb`` on a machine loaded by other work (load average 11 to 15 on 2 cores, so the
seconds of wall clock say little; the CPU seconds are the comparison):

| T | before: seconds | before: CPU seconds | after: seconds | after: CPU seconds | CPU ratio |
|---:|---:|---:|---:|---:|---:|
| 10^5 | 138.3 | 20.0 | 167.2 | 10.1 | 1.98 |
| 10^6 | 2366.0 | 163.8 | 1317.0 | 81.2 | 2.02 |

The target of a 2.5x faster size-T mode is not reached (about 2x; at 10^5 a fixed part, the
enumeration at T = 8 and the cross-checks, about 2 s of CPU, does not change), and the
one-minute target at T = 10^6 is not met in CPU at this load (81 s: about 80 microseconds of
CPU per round, against 14 to 20 for the plain reference; every numpy operation of the policy
still goes through the forms' Python hooks, about 1.2 microseconds each before any work, and
the policy's state is walked twice per round); the rounds cannot be split across cores.
With the analysis (f607b52), the same change at T = 10^5, run side by side at load about 5:
a proof both times, 40.2 -> 32.6 CPU seconds (151.5 -> 129.5 s): the analysis's own Python
layer is now most of the cost. ``dpbandits list`` is unchanged
by the size-T mode (7.4 s of CPU against 7.2 s before it; 12 to 13 s of wall clock at a load
average of 5).

The tree counters (``--skip-checks --size-T 10000 --size dp-ucb dp-ucb-bound private-ucb
dp-ucb:paper dp-ucb-bound:paper``, K = 2, one session, load average 5.2 on 2 cores at the
start). Before: the main branch before the counters kept the linear forms (their items went
through ``np.zeros`` and ``np.asarray``): the cross-check at T = 8 refuses the size-T mode and
the lockstep trace is too large (no bound). After: DP-UCB-Bound and Private-UCB by the stream
form, DP-UCB by the round form (docs/accountant.md#round-form), each derived from the code:

| algorithm | before | after: status | eps | seconds | CPU seconds |
|---|---|---|---:|---:|---:|
| dp-ucb [corrected] | no bound | proof | 1 | 63.0 | 26.2 |
| dp-ucb [paper] | no bound | proof | 2 | 55.3 | 25.1 |
| dp-ucb-bound [corrected] | no bound | proof | 1 | 59.0 | 22.9 |
| dp-ucb-bound [paper] | no bound | proof | 2 | 30.0 | 23.2 |
| private-ucb | no bound | proof | 0.5 | 41.6 | 15.1 |

The size-T mode made cheaper per round, the same outputs (measured side by side with
``--skip-checks --baseline-src BASE/src``, BASE the main branch before the change; a machine
shared with other work, load average 15 to 22 on 2 cores, so the wall seconds say little and
the CPU seconds are the comparison; every row's outputs identical to the baseline's). Profiled
first (cProfile, Anytime-Lazy-UCB at K = 2, T = 2 10^4, and DP-UCB at T = 5000): most of the
time was the tracers' own Python layers, not the policy's arithmetic. The cuts: the tracers'
own plain views of followed arrays and their own np.asarray/np.array no longer go through the
fail-closed hooks meant for the policy's code (which returned at once for the tracers' frames,
after walking the argument: 12 of 52 CPU seconds of DP-UCB went to walking tuples of form ids
element by element); the test of state sharing memory with per-(run, arm) state is made again
only when an array moved; arrays updated in every slot are not compared element by element
after observe (any change is allowed there); a product of forms by a 0/1 mask and a row sum of
forms skip the Python calls of their zeros; the rank of a tagged value is read directly.

| algorithm | K | T | part | baseline: CPU seconds | now: CPU seconds | outputs |
|---|---:|---:|---|---:|---:|---|
| anytime-lazy-ucb | 2 | 10^5 | whole bound (proof, eps 1) | 59.6 | 39.2 | identical |
| dp-ucb (round form) | 2 | 10^4 | whole bound (proof, eps 1) | 50.1 | 36.9 | identical |
| anytime-lazy-ucb | 10 | 10^4 | size-T stage (stream form, eps 1) | 6.4 | 4.4 | identical |
| anytime-lazy-ucb | 10 | 10^5 | size-T stage (stream form, eps 1) | 63.4 | 42.7 | identical |

(At K = 10 the whole bound needs an enumeration at the small size that does not fit the
budget; the size-T stage is the part that grows with T: 14 sequences at once, 0.43 ms of CPU
per round.)
The targets (Anytime-Lazy-UCB at K = 2, T = 10^6 and DP-UCB at T = 10^5, each within 60 CPU
seconds) are not met: at about 0.36 ms of CPU per round (K = 2, 8 sequences at once; the
slope between T = 2000, 3.6 s, and T = 10^5) the first would take about 370 s, and DP-UCB, about
2.8 ms per round in its tree counters' object arrays (14.9 s at T = 2000), about 290 s at 10^5
(both extrapolated at this load, not measured). What remains per round is
the policy's every numpy operation through the forms' and tags' Python hooks (tens of
microseconds each) and the dependence analysis's two snapshots of the state; a minute at 10^6
needs those done without a Python call per operation.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from unittest import mock

from baseline import add_baseline
from baseline import sources as baseline_sources

from dpbandits.accountant import PER_ARM, TRACE_CELLS, TooLargeToTrace, coverage, proof_size, traced_upper
from dpbandits.cli.listing import _traced
from dpbandits.reference import algorithms, noise


def _list_bounds() -> list[float]:
    return [_traced(info.name, v, 1.0)["epsilon"] for info in algorithms(1.0) if info.private
            for v in info.variants]


def _lazy_proof() -> list[float]:
    return [traced_upper("anytime-lazy-ucb", K=2, T=8, delta=0.0).epsilon]


@contextlib.contextmanager
def _unchecked():
    """The enumeration without the code checks: nothing watched, no arcs recorded."""
    with mock.patch.object(noise, "watch", lambda obj, depth=0: None), \
            mock.patch.object(coverage, "recording", contextlib.nullcontext):
        yield


def _best(work, repeats: int, checked: bool) -> tuple[float, list[float]]:
    best, out = float("inf"), []
    for _ in range(repeats):
        with (contextlib.nullcontext() if checked else _unchecked()):
            start = time.perf_counter()
            out = work()
            best = min(best, time.perf_counter() - start)
    return best, out


def _label(spec: str) -> tuple[str, str | None]:
    name, _, variant = spec.partition(":")
    return name, variant or None


def _measure(spec: str, K: int, T: int, sequences_only: bool) -> dict:
    """In the child process (the package on its PYTHONPATH): the size-T bound of ``spec`` at K
    and T by ``traced_upper`` or, with ``sequences_only``, the size-T stage alone (the traced
    sequences at K and T with the dependence analysis, as ``traced_upper`` runs it after its
    checks at the small size); its outputs, wall seconds and CPU seconds."""
    from dpbandits.accountant import size as sized

    name, variant = _label(spec)
    start, cpu = time.perf_counter(), time.process_time()
    if sequences_only:
        run = sized.symbolic_run(name, epsilon=1.0, K=K, T=T, variant=variant, params={},
                                 policy_class=None, derive=True,
                                 sequences=sized.size_sequences(K, T, [tuple(range(K))]))
        form, why = sized.lemma(run)
        eps, cell = sized.bound(run)
        out = {"status": f"size-T stage: lemma {form}, derived {run.derived_form}",
               "epsilon": eps, "cell": list(cell), "sequences": len(run.labels),
               "findings": run.problems() + list(run.locality or []) + why,
               "costs (sha256)": hashlib.sha256(run.cost.tobytes()).hexdigest()}
    else:
        try:
            bound = traced_upper(name, variant=variant, K=K, T=T, delta=0.0)
        except TooLargeToTrace as e:
            out = {"status": f"no bound ({str(e)[:120]})", "epsilon": None, "findings": []}
        else:
            out = {"status": ("proof" if bound.proof else "per-arm bound"
                              if bound.status.startswith(PER_ARM) else "estimate"),
                   "epsilon": bound.epsilon, "findings": list(bound.findings),
                   "full status": bound.status, "scope": bound.scope,
                   "assumption": bound.assumption, "per_row": sorted(bound.per_row.items())}
    out["seconds"] = time.perf_counter() - start
    out["cpu"] = time.process_time() - cpu
    return out


def _child(src: Path, spec: str, K: int, T: int, sequences_only: bool) -> dict:
    """:func:`_measure` in a fresh process on the package at ``src``."""
    command = [sys.executable, __file__, "--child", spec, "--size-T", str(T), "--arms", str(K)]
    done = subprocess.run(command + (["--sequences-only"] if sequences_only else []),
                          env={**os.environ, "PYTHONPATH": str(src)}, capture_output=True,
                          text=True)
    if done.returncode != 0:
        return {"status": f"failed ({done.stderr.strip().splitlines()[-1][:120]})",
                "epsilon": None, "findings": [], "seconds": float("nan"), "cpu": float("nan")}
    return json.loads(done.stdout.strip().splitlines()[-1])


_TIMING = ("seconds", "cpu")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--size-T", type=int, default=1_000_000)
    parser.add_argument("--arms", type=int, default=2, help="K of the size-T bound")
    parser.add_argument("--size", nargs="*", default=["anytime-lazy-ucb", "lazy-dp-ts"],
                        help="algorithms (name or name:variant) bounded at --size-T")
    parser.add_argument("--skip-checks", action="store_true",
                        help="skip the table of the checks' cost")
    parser.add_argument("--sequences-only", action="store_true",
                        help="time the size-T stage alone (the traced sequences at K and T, "
                             "with the dependence analysis), not the whole bound")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    add_baseline(parser)
    args = parser.parse_args()
    if args.child is not None:
        print(json.dumps(_measure(args.child, args.arms, args.size_T, args.sequences_only)))
        return
    if args.repeats < 1 or args.size_T < 1 or args.arms < 2:
        parser.error("--repeats and --size-T must be at least 1, --arms at least 2")
    sources = baseline_sources(parser, args.baseline_src)
    assert proof_size("anytime-lazy-ucb") == (2, 6)
    if not args.skip_checks:
        print("| work | with the checks (s) | without (s) | ratio |")
        print("|---|---:|---:|---:|")
        for label, work in [("`list`'s bounds, every private variant", _list_bounds),
                            ("Anytime-Lazy-UCB proof, K = 2, T = 8", _lazy_proof)]:
            checked, a = _best(work, args.repeats, True)
            plain, b = _best(work, args.repeats, False)
            print(f"| {label} | {checked:.2f} | {plain:.2f} | {checked / plain:.2f} |")
        print()
    K, T = args.arms, args.size_T
    cells = (1 + K * T) * T * K
    what = ("the size-T stage alone (symbolic_run with the dependence analysis on the size-T "
            "sequences after start 0..K-1; lemma, bound and findings)" if args.sequences_only
            else "the bound by traced_upper")
    print(f"At K = {K}, T = {T}: the lockstep trace would hold {cells:.3g} table cells (it "
          f"refuses above {TRACE_CELLS:.0e}); {what}, each package in a process of its own, "
          f"one after the other:")
    print()
    print(f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores at the start; CPU "
          f"seconds are the child process's, from its start of the computation)")
    print()
    print("| algorithm | package | status | eps | seconds | CPU seconds | outputs |")
    print("|---|---|---|---:|---:|---:|---|")
    for spec in args.size:
        results = {label: _child(src, spec, K, T, args.sequences_only)
                   for label, src in sources.items()}
        outputs = {label: {k: v for k, v in r.items() if k not in _TIMING}
                   for label, r in results.items()}
        same = ("" if len(sources) == 1 else "identical" if len(
            {json.dumps(o, sort_keys=True) for o in outputs.values()}) == 1 else "DIFFER")
        for label, r in results.items():
            eps = "-" if r["epsilon"] is None else f"{r['epsilon']:.4g}"
            print(f"| {spec} | {label} | {r['status']} | {eps} | {r['seconds']:.1f} | "
                  f"{r['cpu']:.1f} | {same} |", flush=True)
    print()
    print(f"(load average {os.getloadavg()[0]:.1f} at the end)")


if __name__ == "__main__":
    main()
