"""What `validate` costs beside the candidate's own runs: the validate-to-own-runs ratio.

Usage: python benchmarks/validate_time.py [--candidate FILE.py:OBJECT] [--against ALGO]
       [--epsilon E] [--horizon T] [--runs R] [--audit-samples N] [--repeats K]

``validate`` asks the candidate for runs: the behaviour samples (R runs on the fixed table and R
runs on fresh tables), the privacy audit's selection and test samples on its pairs, and nothing
else (the explanation stages run only the reference). The script counts every run-round the
candidate is asked for (each ``sample(table, n, seed)`` call: n runs of the table's T rounds),
then times the candidate alone doing the same run-rounds in this process: built per run as
``validate`` builds it and driven by a plain loop of ``act`` / ``observe`` on random {0, 1}
rewards, with no isolation, no tests and no reference. The ratio is the validation's wall time
over those own runs (best of K repeats of each); 1 would be a validation that costs nothing
beyond running the candidate. It prints a Markdown table.

Measured on the 2-core machine under a load of about 10 (one repeat each):
PlainLazyUCB against anytime-lazy-ucb, T = 300, 40 runs, 1000 audit runs per side: 1,208,000
run-rounds asked (1,184,000 of them the audit's, at T = 16), validate 21.1 s, own runs 6.7 s,
ratio 3.15; PlainUCB1 against ucb1, T = 1000, 200 runs, no audit: 400,000 run-rounds, validate
11.2 s, own runs 1.2 s, ratio 9.0 (the planted variants' runs of the reference at 4 T and 16 T
dominate). Neither meets a ratio of 2.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

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

    def sample_many(self, requests: list) -> list:
        for table, n, _ in requests:
            self._count(table, n)
        return self._mechanism.sample_many(requests)

    def worker_copy(self) -> None:
        return None                     # every piece in this process, so that all are counted


def own_runs(target: str, against: str, epsilon: float | None,
             run_rounds: dict[tuple[int, int], int]) -> float:
    """Seconds for the candidate's own runs: per (T, K), run_rounds / T runs of T rounds."""
    make = builder(resolve(target), target)
    rng = np.random.default_rng(0)
    start = time.perf_counter()
    for (T, K), total in run_rounds.items():
        rewards = (rng.random((T, K)) < 0.5).astype(float)
        problem = Problem(K, T, epsilon, {}, "bandit", reference_values(against, K, T, epsilon, {}))
        for _ in range(total // T):
            policy = make(problem, rng)
            for t in range(1, T + 1):
                arm = int(policy.act(t))
                policy.observe(t, arm, rewards[t - 1, arm])
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--candidate", default="examples/validate/implementations.py:PlainLazyUCB")
    parser.add_argument("--against", default="anytime-lazy-ucb")
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--horizon", type=int, default=300)
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--audit-samples", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()

    from dpbandits.reference import get
    from dpbandits.validate.loading import check_request

    request = check_request(args.against, epsilon=args.epsilon, horizon=args.horizon,
                            runs=args.runs, audit_samples=args.audit_samples)
    best_validate, best_own, counted = float("inf"), float("inf"), None
    for _ in range(args.repeats):
        candidate = Counting(load(args.candidate, K=request.K, epsilon=request.epsilon,
                                  feedback=get(args.against).feedback, reference=args.against))
        start = time.perf_counter()
        try:
            result = validate(candidate, args.against, epsilon=args.epsilon,
                              horizon=args.horizon, runs=args.runs,
                              audit_samples=args.audit_samples)
        finally:
            close = getattr(candidate._mechanism, "close", None)
            if close:
                close()
        best_validate = min(best_validate, time.perf_counter() - start)
        counted = candidate.run_rounds
        best_own = min(best_own, own_runs(args.candidate, args.against, args.epsilon, counted))
    total = sum(counted.values())
    print(f"| candidate | against | T | runs | audit samples | run-rounds asked | validate s | "
          f"own runs s | ratio |")
    print("|---|---|---|---|---|---|---|---|---|")
    print(f"| {args.candidate} | {args.against} | {args.horizon} | {args.runs} | "
          f"{args.audit_samples} | {total} | {best_validate:.1f} | {best_own:.1f} | "
          f"{best_validate / best_own:.2f} |")
    print(f"\nbehaviour {result.behaviour}, privacy {result.privacy}; run-rounds by horizon: "
          + ", ".join(f"T = {T}, K = {K}: {n}" for (T, K), n in sorted(counted.items())))


if __name__ == "__main__":
    main()
