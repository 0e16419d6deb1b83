"""Throughput against worker count: the engine and the audit, locally and on a Dask cluster.

Usage: python benchmarks/scaling.py [--runs R] [--horizon T] [--samples N]

Engine: Anytime-Lazy-UCB on hu-journal-setting1 (K = 5), R runs of T rounds, in seeded blocks of
4096 runs, with 1 and 2 local worker processes and on a LocalCluster of 1 and 2 worker
processes; run-rounds per second, wall clock, including process start-up. Audit: the FTNL
(Lap(1/eps)) audit with N test runs per side, samples (runs of 16 rounds, both sides, selection
and test) per second; its candidate pairs run side by side on the workers. Audits side by side:
``audit_all`` over a few algorithms of every family (``SIDE_BY_SIDE``, all their variants, no
controls) at 20 000 test runs per side, wall clock. Every configuration must give the identical
results; the script checks it. It prints a Markdown table.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from dpbandits.audit import audit_algorithm, audit_all
from dpbandits.reference import get_setting, simulate, spec


def engine(runs: int, T: int, **where) -> tuple[float, np.ndarray]:
    factory = spec("anytime-lazy-ucb", 5, epsilon=1.0)
    source = get_setting("hu-journal-setting1").environment()
    start = time.perf_counter()
    result = simulate(factory, source, T, runs=runs, seed=0, **where)
    return runs * T / (time.perf_counter() - start), result.pseudo_regret[:, -1]


def audit(samples: int, **where) -> tuple[float, dict]:
    start = time.perf_counter()
    result = audit_algorithm("rnm-ftnl", variant="paper", samples=samples, seed=0, **where)
    # selection sample: n_selection runs per side for each candidate pair; test: n_test per side
    drawn = 2 * (result.n_selection * result.counts.get("candidate_pairs", 1) + result.n_test)
    data = result.to_dict()
    data.pop("seconds")
    return drawn / (time.perf_counter() - start), data


SIDE_BY_SIDE = ["dp-ucb", "lazy-dp-ts", "adap-klucb", "rnm-ftnl", "dpts-mat"]
"""The algorithms whose audits run side by side in the third column."""


def audits(**where) -> tuple[float, list[dict]]:
    start = time.perf_counter()
    results = audit_all(samples=20_000, seed=0, include_controls=False, names=SIDE_BY_SIDE,
                        presets={}, **where)
    data = [r.to_dict() for r in results]
    for row in data:
        row.pop("seconds")
    return time.perf_counter() - start, data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=32_768, help="runs for the engine (default 32768)")
    parser.add_argument("--horizon", type=int, default=2_000, help="rounds per run (default 2000)")
    parser.add_argument("--samples", type=int, default=50_000, help="audit test runs per side")
    args = parser.parse_args()
    rows, reference_engine, reference_audit, reference_all = [], None, None, None
    configurations = [("1 process", {}), ("2 local processes", {"workers": 2})]
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        Client = LocalCluster = None
    clusters = []
    if LocalCluster is not None:
        for n in (1, 2):
            cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                   dashboard_address=None)
            clusters.append((cluster, Client(cluster)))
            configurations.append((f"LocalCluster, {n} worker(s)", {"client": clusters[-1][1]}))
    try:
        for label, where in configurations:
            rate, finals = engine(args.runs, args.horizon, **where)
            a_rate, a_result = audit(args.samples, **where)
            seconds, all_results = audits(**where)
            if reference_engine is None:
                reference_engine, reference_audit, reference_all = finals, a_result, all_results
            same = (np.array_equal(finals, reference_engine) and a_result == reference_audit
                    and all_results == reference_all)
            rows.append((label, rate, a_rate, seconds, same))
    finally:
        for cluster, client in clusters:
            client.close()
            cluster.close()
    print(f"Anytime-Lazy-UCB, {args.runs} runs x {args.horizon} rounds; FTNL audit, {args.samples} "
          f"test runs per side; audits of {', '.join(SIDE_BY_SIDE)} side by side\n")
    print("| where | engine run-rounds/s | audit runs/s | audits side by side, s | identical results |")
    print("|---|---:|---:|---:|---|")
    for label, rate, a_rate, seconds, same in rows:
        print(f"| {label} | {rate:.3g} | {a_rate:.3g} | {seconds:.1f} | {'yes' if same else 'NO'} |")


if __name__ == "__main__":
    main()
