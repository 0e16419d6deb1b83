"""``dpbandits audit``: a lower bound on epsilon from neighbouring runs, tested against the claim.

Audits one registered algorithm (``ALGO``), every algorithm and variant (``--all``), or an
external program speaking the line protocol (``--command``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from ..errors import DPBanditsError, check_epsilon, check_positive_int
from ..files import atomic_write
from ..reference import get
from ..reference.registry import ALGORITHMS
from .options import (OK, add_json, add_out, add_progress, add_scheduler, add_seed, add_workers,
                      cluster, parse_params, progress_bar, say_for)

HELP = "estimate a lower bound on epsilon and test the claim"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("algorithm", nargs="?", metavar="ALGO", help="registered algorithm name")
    parser.add_argument("--all", action="store_true", help="audit every algorithm and variant")
    parser.add_argument("--command", dest="external", metavar="'PROGRAM ARGS'",
                        help="audit an external program speaking the line protocol")
    parser.add_argument("--variant", default=None, help="variant (default: the algorithm's default)")
    parser.add_argument("--epsilon", type=float, default=1.0, help="epsilon of the algorithm (default 1)")
    parser.add_argument("--claim-epsilon", type=float, default=None,
                        help="the epsilon an external program claims")
    parser.add_argument("--arms", type=int, default=None, help="number of arms K")
    parser.add_argument("--horizon", type=int, default=None, help="rounds T per run (default 16)")
    parser.add_argument("--samples", type=int, default=None,
                        help="test-sample runs per side (default 50000; 20000 per algorithm with --all)")
    parser.add_argument("--alpha", type=float, default=0.05, help="1 - confidence (default 0.05)")
    add_seed(parser)
    parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                        help="algorithm parameter (repeatable)")
    parser.add_argument("--white-box", action="store_true",
                        help="audit the noisy statistics the algorithm releases, not its actions")
    parser.add_argument("--protocol", choices=("table", "interactive"), default="table",
                        help="line protocol of the external program (default table)")
    parser.add_argument("--feedback", choices=("bandit", "full"), default="bandit",
                        help="what the external program observes (default bandit)")
    parser.add_argument("--timeout", type=float, default=10.0,
                        help="seconds an external program may take per run (default 10)")
    add_workers(parser, "worker processes (simulations, or external program instances)")
    add_scheduler(parser, "simulate on a Dask cluster (needs dpbandits[distributed]); same result")
    add_out(parser, help="output folder for --all")
    add_json(parser, "print the result as JSON")
    add_progress(parser)


def run(args: argparse.Namespace) -> int:
    chosen = [bool(args.algorithm), bool(args.all), bool(args.external)]
    if sum(chosen) != 1:
        raise DPBanditsError("give exactly one of ALGO, --all or --command")
    if args.all:
        return _audit_all(args)
    result = _audit_external(args) if args.external else _audit_one(args)
    print(result.to_json(indent=1) if args.json else describe(result))
    return OK


def _audit_all(args: argparse.Namespace) -> int:
    from ..audit import audit_all, claims_table

    start = time.perf_counter()
    workers = check_positive_int(args.workers, "workers")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    jobs = sum(len(get(name).variants) for name in ALGORITHMS) + 1
    with cluster(args.scheduler) as client, \
            progress_bar(jobs, "audit --all", disabled=args.no_progress, unit=" audits") as bar:
        def step(message: str) -> None:
            bar.set_description_str(message.split("] ", 1)[-1][:40])
            bar.update(1)

        results = audit_all(check_epsilon(args.epsilon), samples=args.samples or 20_000,
                            alpha=args.alpha, seed=args.seed, workers=workers,
                            client=client, resume=out / "audit-results", progress=step)
    table = claims_table(results)
    as_json = json.dumps([r.to_dict() for r in results], indent=1)
    atomic_write(out / "audit-claims.md", lambda h: h.write(table + "\n"), mode="w")
    atomic_write(out / "audit-claims.json", lambda h: h.write(as_json), mode="w")
    print(as_json if args.json else table)
    print(f"\n{sum(r.verdict == 'violation' for r in results)} violation(s) in {len(results)} "
          f"audits, {time.perf_counter() - start:.0f} s; wrote {out / 'audit-claims.md'} and "
          f"{out / 'audit-claims.json'}", file=sys.stderr)
    return OK


def _audit_external(args: argparse.Namespace):
    from ..audit import audit
    from ..audit.external import CommandMechanism

    if args.claim_epsilon is None or args.arms is None:
        raise DPBanditsError("--command needs --claim-epsilon and --arms")
    mechanism = CommandMechanism(args.external, check_positive_int(args.arms, "arms", minimum=2),
                                 check_epsilon(args.claim_epsilon, "claim-epsilon"),
                                 protocol=args.protocol, feedback=args.feedback,
                                 workers=args.workers, timeout=args.timeout)
    return audit(mechanism, samples=args.samples or 20_000, alpha=args.alpha, seed=args.seed,
                 T=args.horizon or 16, progress=say_for(args))


def _audit_one(args: argparse.Namespace):
    from ..audit import audit_algorithm

    workers = check_positive_int(args.workers, "workers")
    with cluster(args.scheduler) as client:
        return audit_algorithm(args.algorithm, epsilon=check_epsilon(args.epsilon),
                               variant=args.variant, K=args.arms, T=args.horizon,
                               params=parse_params(args.param), samples=args.samples or 50_000,
                               alpha=args.alpha, seed=args.seed, white_box=args.white_box,
                               workers=workers, client=client, progress=say_for(args))


def describe(result) -> str:
    """The printed form of one audit result: summary, pair, event, sample counts."""
    counts = result.counts
    lines = [result.summary(),
             f"  pair:  {result.pair['description']} (T = {result.pair['T']}, K = {result.pair['K']})",
             f"  event: {result.event}",
             f"  test sample: {counts.get('in_S_D0', '-')} of {counts['n_D0']} runs on D0 and "
             f"{counts.get('in_S_D1', '-')} of {counts['n_D1']} on D1 in the event; selection "
             f"{result.n_selection} runs per side and pair, {counts['candidate_pairs']} candidate pairs",
             f"  point estimate (not a bound): {result.epsilon_estimate:.3f}; {result.seconds:.1f} s"]
    return "\n".join(lines)
