"""What `validate` costs beside the candidate's own runs: the validate-to-own-runs ratio.

Usage: python benchmarks/validate_time.py [--candidate MODULE:OBJECT] [--against ALGO]
       [--epsilon E] [--horizon T] [--runs R] [--audit-samples N] [--repeats K]

``validate`` asks the candidate for runs: the behaviour samples (R runs on the fixed table and R
runs on fresh tables), the privacy audit's selection and test samples on its pairs, and nothing
else (the explanation stages run only the reference). The script counts every run-round the
candidate is asked for (each ``sample(table, n, seed)`` call: n runs of the table's T rounds),
then times the candidate alone doing the same run-rounds in this process: built per run as
``validate`` builds it and driven by a plain loop of ``act`` / ``observe`` (through the protocol
its object follows: SMPyBandits, MABWiser and step-style candidates as ``validate`` drives them)
on random {0, 1} rewards, with no isolation, no tests and no reference. The ratio is the validation's wall time
over those own runs (best of K repeats of each); 1 would be a validation that costs nothing
beyond running the candidate. It prints a Markdown table.

``--baseline-src DIR`` runs every case again on an older package (``git archive COMMIT src |
tar -x -C DIR``, then ``--baseline-src DIR/src``), right after the case, in a process of its own,
and prints its figures beside: the two are measured under the same load.

The CPU columns (``LAST_CPU``) hardly move with the load: the auditor's process (every thread),
the candidate's host processes, and the candidate's own runs. With two idle cores the
validation's wall time is at least the larger of the first two.

Measured with many samples sent to the host in one message (validate's runs on fresh tables;
the audit's pairs in groups of about 100 000 rounds of runs, and the test's two sides at each
look), the host's round loop made leaner, the Mann-Whitney test computed directly, the pull
counts taken stretch by stretch and the audit's distinct outputs found without sorting, against
the package before those changes (commit 75f4cbc), ``python benchmarks/validate_time.py
--repeats 3 --baseline-src OLD/src`` on the 2-core machine with nothing else running (load
average 0.5 before, 1.6 after: the benchmark's own processes):

| case | validate s | own runs s | ratio | CPU s: auditor, host, own | before: validate s, own s, ratio; CPU s |
|---|---|---|---|---|---|
| PlainLazyUCB vs anytime-lazy-ucb, T = 300, 40 runs, at most 1000 audit runs | 3.5 | 2.0 | 1.76 | 2.5, 3.3, 2.0 | 3.8, 2.0, 1.96; 3.5, 3.1, 2.0 |
| PlainUCB1 vs ucb1, T = 1000, 200 runs, no audit | 1.3 | 0.9 | 1.49 | 0.9, 1.1, 0.9 | 1.8, 0.9, 2.14; 1.6, 1.1, 0.9 |
| PlainLazyUCB vs anytime-lazy-ucb, T = 300, 40 runs, default audit | 3.4 | 1.9 | 1.78 | 2.5, 3.2, 1.9 | 3.9, 2.0, 1.98; 3.4, 3.2, 2.0 |

The same command earlier, with other work on the machine (load average 1.8 to 3.4, the
benchmark's own two processes included):

| case | validate s | own runs s | ratio | CPU s: auditor, host, own | before: validate s, own s, ratio; CPU s |
|---|---|---|---|---|---|
| PlainLazyUCB vs anytime-lazy-ucb, T = 300, 40 runs, at most 1000 audit runs | 4.5 | 2.0 | 2.29 | 2.4, 3.1, 1.9 | 5.1, 1.9, 2.64; 3.2, 3.0, 1.9 |
| PlainUCB1 vs ucb1, T = 1000, 200 runs, no audit | 1.5 | 0.9 | 1.73 | 0.8, 1.0, 0.9 | 2.2, 0.8, 2.63; 1.4, 1.0, 0.8 |
| PlainLazyUCB vs anytime-lazy-ucb, T = 300, 40 runs, default audit | 4.3 | 1.9 | 2.20 | 2.2, 2.9, 1.9 | 5.1, 2.0, 2.57; 3.2, 2.9, 1.9 |

A pure-Python DP-SE at validate's defaults (``--candidate examples/ci/dp_se.py:DPSE --against
dp-se --epsilon 1 --horizon 16276 --runs 200``: 200 runs on each behaviour sample at T = 16 276,
the audit at DP-SE's release horizon T = 8138; 112 304 400 run-rounds), one repeat at a load of
about 4: 61.8 s against its own runs' 42.8 s, a ratio of 1.44 (CPU: auditor 20.4 s, host 41.8 s,
own 39.0 s); before (75f4cbc, the same command with ``--row`` on the old package, right after,
at a load of 1 to 3): 101.1 s against 42.4 s, 2.39 (auditor 74.7 s, host 46.3 s, own 40.8 s).
The auditor's 54 s less were the audit's distinct outputs found by sorting every sample (18.8 s
of its audit) and the planted variants' pull counts at 4 T and 16 T (a running count of every
arm in every round: 62 of the reference side's 94 profiled seconds).

For a quick candidate (PlainLazyUCB at T = 16: 46 us a run of its own) the host adds about
28 us a run: 9 us for the run's seed sequence and generator and 4.4 us for seeding Python's
global generator (both needed for runs that do not depend on the workers), the rest building
the run's policy and the block's bookkeeping; with the validation's own statistical work on
the other core (the planted variants' reference runs, most of it), the ratio is above 2 when
the two cores are shared with other work, and a candidate whose runs cost more than its
harness (DP-SE) is well below it.

Measured with the audit's selection screened (every pair on a quarter of the selection sample,
the three leading pairs on all of it: docs/audit-protocol.md#the-selection-sample), the
global generators' seeds derived for a block of runs at once, NumPy's global generator watched
rather than seeded, and the runs' generators made in blocks, against the package before those
changes (commit ea74e16), each case's baseline run right after it (``python
benchmarks/validate_time.py --baseline-src OLD/src``), on the shared 2-core machine under a
load of 10.7 to 11.0 (one repeat each):

| case | run-rounds (before) | validate s | own runs s | ratio | before: validate s, own s, ratio |
|---|---|---|---|---|---|
| PlainLazyUCB vs anytime-lazy-ucb, T = 300, 40 runs, at most 1000 audit runs | 488,000 (1,208,000) | 13.1 | 5.9 | 2.23 | 35.6, 13.8, 2.59 |
| PlainUCB1 vs ucb1, T = 1000, 200 runs, no audit | 400,000 (400,000) | 4.8 | 2.8 | 1.69 | 5.8, 2.7, 2.19 |
| PlainLazyUCB vs anytime-lazy-ucb, T = 300, 40 runs, default audit | 488,000 (1,311,680) | 13.5 | 5.7 | 2.38 | 40.9, 14.6, 2.80 |

The same command again 45 minutes later, at a load of 13.7 to 14.4: 9.9 s / 4.6 s = 2.16
(before: 36.3 s / 10.5 s = 3.45), 3.8 s / 1.9 s = 2.06 (4.9 / 2.3 = 2.09) and 9.7 s / 5.0 s =
1.96 (34.0 / 14.2 = 2.39). The ratios move with the load by more than the 2's margin; the
validation's time against the baseline's does not (0.27 to 0.38 with an audit).

The validation takes a third of the time it took (13.1 s against 35.6 s, 13.5 s against
40.9 s), and asks the candidate for 40% of the run-rounds: the selection sample is 13 500 runs
per side instead of 36 000. The ratio falls less, because the candidate's own runs shrink with
it. A run of a quick candidate (PlainLazyUCB, T = 16) costs its host 69 us of CPU against its
own 60 us (149 us before, about 50 us of it seeding the global generators); what remains
above 2 is the validation's own work beside the candidate's runs, which the candidate's runs
no longer hide: in this process, one core under the GIL, the reference's samples and the
planted variants' runs (validate/power.py), the two-sample tests (the chi-square permutation
test of homogeneity and Mann-Whitney in validate/stats.py), the scores' fits, and the first
validation's imports; the screening of 18 pairs took 6.7 s of wall time at this load while the
host used 3.4 s of CPU in the whole validation, waiting for this process to send its next
runs.

Before, on the 2-core machine under a load of 11 to 12 (shared; one repeat each), ``python
benchmarks/validate_time.py --baseline-src OLD/src`` with OLD the package before the test sample
was sized from its power need (commit 46f4ffa):

| case | run-rounds | validate s | own runs s | ratio | baseline ratio (same run) |
|---|---|---|---|---|---|
| PlainLazyUCB vs anytime-lazy-ucb, T = 300, 40 runs, at most 1000 audit runs | 1,208,000 | 20.5 | 9.7 | 2.12 | 3.56 (35.4 s) |
| PlainUCB1 vs ucb1, T = 1000, 200 runs, no audit | 400,000 | 3.4 | 1.9 | 1.77 | 10.30 (23.4 s) |
| PlainLazyUCB vs anytime-lazy-ucb, T = 300, 40 runs, default audit | 1,311,680 | 25.4 | 12.0 | 2.13 | 2.99 (41.4 s, 1,496,000 run-rounds) |

The same three cases at a load average of about 2 (``python benchmarks/validate_time.py``, one
repeat, 41 s in all), before the selection was screened: 11.9 s / 4.9 s = 2.41, 1.9 s / 0.9 s =
2.19 and 12.9 s / 5.4 s = 2.40.

Earlier, under a load of about 10: 3.15 and 9.0 for the first two (the planted variants' runs
of the reference at 4 T and 16 T dominated the second; in fact 11.3 of its 18 s were the
permutation tests' label shuffles).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from typing import Any

import numpy as np

from dpbandits.audit.protocols import adapt
from dpbandits.candidates import Problem, builder, load, reference_values, resolve
from dpbandits.validate import validate


class Counting:
    """A loaded candidate mechanism that counts the run-rounds it is asked for."""

    def __init__(self, mechanism: Any) -> None:
        self._mechanism = mechanism
        self.run_rounds: dict[tuple[int, int], int] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._mechanism, name)

    def _count(self, table: Any, n: int) -> None:
        T, K = np.asarray(table.X).shape[:2]
        key = (int(T), int(K))
        self.run_rounds[key] = self.run_rounds.get(key, 0) + int(n) * int(T)

    def sample(self, table: Any, n: int, seed: int) -> np.ndarray:
        self._count(table, n)
        return self._mechanism.sample(table, n, seed)

    def sample_from(self, table: Any, first: int, n: int, seed: int) -> np.ndarray:
        self._count(table, n)
        return self._mechanism.sample_from(table, first, n, seed)

    def sample_many(self, requests: list) -> list:
        for table, n, _ in requests:
            self._count(table, n)
        return self._mechanism.sample_many(requests)

    def sample_many_from(self, requests: list) -> list:
        for table, _, n, _ in requests:
            self._count(table, n)
        return self._mechanism.sample_many_from(requests)

    def worker_copy(self) -> None:
        return None                     # every piece in this process, so that all are counted


def own_runs(target: str, against: str, epsilon: float | None,
             run_rounds: dict[tuple[int, int], int]) -> float:
    """Seconds for the candidate's own runs: per (T, K), run_rounds / T runs of T rounds."""
    return _own_runs_timed(target, against, epsilon, run_rounds)[0]


def _own_runs_timed(target: str, against: str, epsilon: float | None,
                    run_rounds: dict[tuple[int, int], int]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of the candidate's own runs (:func:`own_runs`): each run
    built as ``validate`` builds it and driven through the protocol its object follows (act /
    observe, SMPyBandits, MABWiser, step-style: :func:`dpbandits.audit.protocols.adapt`), with
    the pulled arm's reward (bandit feedback) or the whole row (full information)."""
    from dpbandits.reference import get

    make = builder(resolve(target), target)
    feedback = get(against).feedback
    rng = np.random.default_rng(0)
    start, cpu = time.perf_counter(), time.process_time()
    for (T, K), total in run_rounds.items():
        rewards = (rng.random((T, K)) < 0.5).astype(float)
        problem = Problem(K, T, epsilon, {}, feedback, reference_values(against, K, T, epsilon, {}))
        for _ in range(total // T):
            policy = adapt(make(problem, rng), K, feedback, rng, target)
            for t in range(1, T + 1):
                arm = int(policy.act(t))
                policy.observe(t, arm, rewards[t - 1, arm] if feedback == "bandit"
                               else rewards[t - 1].copy())
    return time.perf_counter() - start, time.process_time() - cpu


def check_candidate(target: str, against: str, epsilon: float | None) -> None:
    """Raise before any measuring when ``target`` cannot be timed here: its own runs are one
    round of :func:`_own_runs_timed` (a semi-bandit ALGO is not supported)."""
    from dpbandits.reference import get

    if get(against).feedback not in ("bandit", "full"):
        raise SystemExit(f"validate_time.py: --against {against} is a semi-bandit; its own runs "
                         f"are not timed here (bandit and full-information ALGO only)")
    K = 2 if get(against).feedback == "bandit" else 3
    _own_runs_timed(target, against, epsilon, {(1, K): 1})


CASES = [
    # candidate, against, epsilon, T, runs, audit samples (None: the default), the ratio measured
    # before the selection was screened and the per-run seeding made cheaper (commit ea74e16,
    # load about 11, the docstring's table)
    ("examples/validate/implementations.py:PlainLazyUCB", "anytime-lazy-ucb", 1.0, 300, 40, 1000,
     2.59),
    ("examples/validate/implementations.py:PlainUCB1", "ucb1", None, 1000, 200, 0, 2.19),
    ("examples/validate/implementations.py:PlainLazyUCB", "anytime-lazy-ucb", 1.0, 300, 40, None,
     2.80),
]
"""The cases run when no candidate is named: the two measured before, and the default audit."""


def measure(target: str, against: str, epsilon: float | None, T: int, runs: int,
            audit_samples: int | None, repeats: int) -> tuple[float, float, dict, Any]:
    """(validate seconds, own-runs seconds, run-rounds asked by horizon, result), best of
    ``repeats``; the CPU seconds of the best repeats in :data:`LAST_CPU`."""
    from dpbandits.reference import get
    from dpbandits.validate.loading import check_request

    request = check_request(against, epsilon=epsilon, horizon=T, runs=runs,
                            audit_samples=audit_samples)
    check_candidate(target, against, request.epsilon)
    best_validate, best_own, counted, result = float("inf"), float("inf"), {}, None
    for _ in range(repeats):
        candidate = Counting(load(target, K=request.K, epsilon=request.epsilon,
                                  feedback=get(against).feedback, reference=against))
        start, before = time.perf_counter(), os.times()
        try:
            result = validate(candidate, against, epsilon=epsilon, horizon=T, runs=runs,
                              audit_samples=audit_samples)
        finally:
            close = getattr(candidate._mechanism, "close", None)
            if close:
                close()             # the hosts are reaped: their CPU time is the children's
        seconds, after = time.perf_counter() - start, os.times()
        if seconds < best_validate:
            best_validate = seconds
            LAST_CPU["auditor"] = after.user + after.system - before.user - before.system
            LAST_CPU["host"] = (after.children_user + after.children_system
                                - before.children_user - before.children_system)
        counted = candidate.run_rounds
        own, own_cpu = _own_runs_timed(target, against, epsilon, counted)
        if own < best_own:
            best_own, LAST_CPU["own"] = own, own_cpu
    return best_validate, best_own, counted, result


LAST_CPU: dict[str, float] = {}
"""CPU seconds of :func:`measure`'s best repeats: ``auditor`` (this process, every thread),
``host`` (the candidate's host processes) and ``own`` (the candidate's own runs). Unlike the
wall times they hardly move with the machine's load; with two idle cores the validation's
wall time is at least the larger of ``auditor`` and ``host``."""


def _baseline(src: str, target: str, against: str, epsilon: float | None, T: int, runs: int,
              audit_samples: int | None, repeats: int) -> dict:
    """The case measured on the package in ``src`` (this script, ``--row``, in a new process)."""
    command = [sys.executable, __file__, "--row", "--candidate", target, "--against", against,
               "--horizon", str(T), "--runs", str(runs), "--repeats", str(repeats)]
    if epsilon is not None:
        command += ["--epsilon", str(epsilon)]
    if audit_samples is not None:
        command += ["--audit-samples", str(audit_samples)]
    done = subprocess.run(command, env={**os.environ, "PYTHONPATH": src}, capture_output=True,
                          text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--candidate", default=None,
                        help="MODULE:OBJECT or FILE.py:OBJECT, as validate --python takes it: "
                             "act/observe, SMPyBandits, MABWiser or step-style (default: the "
                             "cases of CASES)")
    parser.add_argument("--against", default="anytime-lazy-ucb")
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--horizon", type=int, default=300)
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--audit-samples", type=int, default=None)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--baseline-src", default=None, metavar="DIR",
                        help="also run every case on the package in DIR (an older src/, e.g. "
                             "from `git archive COMMIT src | tar -x -C DIR`), in a process of "
                             "its own right after the case, and print its ratio beside")
    parser.add_argument("--row", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.row:                        # one case, its figures as JSON (for --baseline-src)
        seconds, own, counted, _ = measure(args.candidate, args.against, args.epsilon,
                                           args.horizon, args.runs, args.audit_samples,
                                           args.repeats)
        print(json.dumps({"validate": seconds, "own": own, "run_rounds": sum(counted.values()),
                          **{f"cpu_{k}": v for k, v in LAST_CPU.items()}}))
        return

    cases = CASES if args.candidate is None else [
        (args.candidate, args.against, args.epsilon, args.horizon, args.runs, args.audit_samples,
         None)]
    print("| candidate | against | T | runs | audit samples (most) | run-rounds asked | "
          "validate s | own runs s | ratio | CPU s: auditor, host, own | baseline: run-rounds, "
          "validate s, own s, ratio; CPU s | ratio measured before |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    details = []
    for target, against, epsilon, T, runs, audit_samples, before in cases:
        seconds, own, counted, result = measure(target, against, epsilon, T, runs,
                                                audit_samples, args.repeats)
        shown = "default" if audit_samples is None else audit_samples
        baseline = "-"
        if args.baseline_src:
            old = _baseline(args.baseline_src, target, against, epsilon, T, runs, audit_samples,
                            args.repeats)
            baseline = (f"{old['run_rounds']}, {old['validate']:.1f}, {old['own']:.1f}, "
                        f"{old['validate'] / old['own']:.2f}"
                        + (f"; {old['cpu_auditor']:.1f}, {old['cpu_host']:.1f}, "
                           f"{old['cpu_own']:.1f}" if "cpu_host" in old else ""))
        print(f"| {target.split(':')[-1]} | {against} | {T} | {runs} | {shown} | "
              f"{sum(counted.values())} | {seconds:.1f} | {own:.1f} | {seconds / own:.2f} | "
              f"{LAST_CPU['auditor']:.1f}, {LAST_CPU['host']:.1f}, {LAST_CPU['own']:.1f} | "
              f"{baseline} | {'-' if before is None else f'{before:.2f}'} |", flush=True)
        audit = result.audit
        details.append(f"{target.split(':')[-1]} against {against}: behaviour {result.behaviour}, "
                       f"privacy {result.privacy}; run-rounds by horizon: "
                       + ", ".join(f"T = {T_}, K = {K}: {n}" for (T_, K), n in sorted(counted.items()))
                       + ("" if audit is None else
                          f"; audit: selection {audit.n_selection} runs per side on the chosen "
                          f"pair ({audit.counts.get('selection_runs', '-')} per side over "
                          f"{audit.counts.get('candidate_pairs')} pairs, screened at "
                          f"{audit.counts.get('screened_runs', '-')}), test "
                          f"{audit.n_test} runs per side (look {audit.counts.get('look')} of "
                          f"{audit.counts.get('looks')}, planned "
                          f"{audit.counts.get('planned_n_test')})"))
    print()
    print("\n".join(details))


if __name__ == "__main__":
    main()
