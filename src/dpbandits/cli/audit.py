"""``dpbandits audit``: a lower bound on epsilon from neighbouring runs, tested against the claim.

Audits one registered algorithm (``ALGO``), every algorithm and variant (``--all``), or an
external program speaking the line protocol (``--command``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from .. import limits
from ..audit.external import DEFAULT_TIMEOUT
from ..errors import DPBanditsError
from ..files import atomic_write
from ..reference import get
from ..reference.registry import ALGORITHMS
from .options import (add_backend, FOUND, NOT_TESTED, OK, add_json, add_out, add_progress, add_scheduler,
                      add_seed, add_workers, auto_integer, check_out, cluster, epsilon,
                      parse_params, probability, progress_bar, say_for, seconds)

HELP = "estimate a lower bound on epsilon and test the claim"

SAMPLES = {"algorithm": 50_000, "all": 20_000, "command": 20_000}
"""Test-sample runs per side that ``--samples auto`` means, for ALGO, --all and --command."""

COMMAND_HORIZON = 16
"""Rounds per run of an external program's audit that ``--horizon auto`` means."""

DEFAULTS = dict(variant=None, epsilon=1.0, claim_epsilon=None, arms=None, horizon=None,
                samples=None, alpha=0.05, param=[], white_box=False, protocol="table",
                feedback="bandit", timeout=DEFAULT_TIMEOUT, workers=1, scheduler=None,
                out="dpbandits-out")
"""Every option's default, to tell which options a user gave."""

NOT_FOR = {
    "algorithm": ("claim_epsilon", "protocol", "feedback", "timeout", "out"),
    "all": ("variant", "claim_epsilon", "arms", "horizon", "param", "white_box", "protocol",
            "feedback", "timeout"),
    "command": ("variant", "epsilon", "param", "white_box", "scheduler", "out"),
}
"""Options that do not apply to each way of naming what is audited."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("algorithm", nargs="?", metavar="ALGO", help="registered algorithm name")
    parser.add_argument("--all", action="store_true", help="audit every algorithm and variant")
    parser.add_argument("--command", dest="external", metavar="'PROGRAM ARGS'",
                        help="audit an external program speaking the line protocol")
    parser.add_argument("--variant", default=None, help="variant (default: the algorithm's default)")
    parser.add_argument("--epsilon", type=epsilon, default=DEFAULTS["epsilon"],
                        help="epsilon of the algorithm (default %(default)s)")
    parser.add_argument("--claim-epsilon", type=epsilon, default=None,
                        help="the epsilon an external program claims (required with --command)")
    parser.add_argument("--arms", type=auto_integer(2, limits.MAX_ARMS), default=None,
                        help="number of arms K (required with --command; default auto: the "
                             "algorithm's audit preset)")
    parser.add_argument("--horizon", type=auto_integer(1, limits.MAX_HORIZON), default=None,
                        help=f"rounds T per run (default auto: the algorithm's audit preset, "
                             f"{COMMAND_HORIZON} with --command)")
    parser.add_argument("--samples", type=auto_integer(100, limits.MAX_SAMPLES), default=None,
                        help=f"test-sample runs per side (default auto: {SAMPLES['algorithm']} "
                             f"for ALGO, {SAMPLES['all']} per audit with --all, "
                             f"{SAMPLES['command']} with --command)")
    parser.add_argument("--alpha", type=probability, default=DEFAULTS["alpha"],
                        help="1 - confidence (default %(default)s)")
    add_seed(parser)
    parser.add_argument("--param", action="append", default=[], metavar="[ALGO:]NAME=VALUE",
                        help="a parameter of the algorithm (repeatable; see `dpbandits list`)")
    parser.add_argument("--white-box", action="store_true",
                        help="audit the noisy statistics the algorithm releases, not its actions")
    parser.add_argument("--protocol", choices=("table", "interactive"), default="table",
                        help="line protocol of the external program (default table)")
    parser.add_argument("--feedback", choices=("bandit", "full"), default="bandit",
                        help="what the external program observes (default bandit)")
    parser.add_argument("--timeout", type=seconds, default=DEFAULT_TIMEOUT,
                        help="seconds an external program may take for each expected line "
                             "(default %(default)s)")
    add_workers(parser, "worker processes (simulations, or external program instances)")
    add_backend(parser, "simulation backend of a registered algorithm's runs")
    add_scheduler(parser, "simulate on a Dask cluster (needs dpbandits[distributed]); same result")
    add_out(parser, help="output folder for --all")
    add_json(parser, "print the result as JSON")
    add_progress(parser)


def run(args: argparse.Namespace) -> int:
    chosen = [bool(args.algorithm), bool(args.all), bool(args.external)]
    if sum(chosen) != 1:
        raise DPBanditsError("give exactly one of ALGO, --all or --command")
    mode = "all" if args.all else "command" if args.external else "algorithm"
    ignored = [f"--{name.replace('_', '-')}" for name in NOT_FOR[mode]
               if getattr(args, name) != DEFAULTS[name]]
    if ignored:
        what = {"algorithm": "ALGO", "all": "--all", "command": "--command"}[mode]
        raise DPBanditsError(f"{', '.join(ignored)} {'does' if len(ignored) == 1 else 'do'} not "
                             f"apply to an audit of {what}")
    if args.all:
        return _audit_all(args)
    result = _audit_external(args) if args.external else _audit_one(args)
    print(result.to_json(indent=1) if args.json else describe(result))
    status = exit_status(result)
    if status == NOT_TESTED:
        print("could not test: the distinguishing event never occurred in the test sample, so "
              "the outputs gave no evidence either way (try a longer --horizon or more --samples)",
              file=sys.stderr)
    return status


def exit_status(result) -> int:
    """1 for a violation, 3 when the test sample held no evidence (the event never occurred on
    either side, or the bound is not a number), 0 otherwise."""
    if result.verdict == "violation":
        return FOUND
    counts = result.counts
    never = counts.get("in_S_D0", 1) == 0 and counts.get("in_S_D1", 1) == 0
    if never or result.epsilon_lower_bound != result.epsilon_lower_bound:
        return NOT_TESTED
    return OK


def _audit_all(args: argparse.Namespace) -> int:
    from ..audit import audit_all, claims_table

    start = time.perf_counter()
    samples = args.samples or SAMPLES["all"]
    out = check_out(args.out)
    jobs = sum(len(get(name).variants) for name in ALGORITHMS) + 1
    with cluster(args.scheduler) as client, \
            progress_bar(jobs, "audit --all", disabled=args.no_progress, unit=" audits") as bar:
        def step(message: str) -> None:
            bar.set_description_str(message.split("] ", 1)[-1][:40])
            bar.update(1)

        results = audit_all(args.epsilon, samples=samples,
                            alpha=args.alpha, seed=args.seed, workers=args.workers,
                            client=client, resume=out / "audit-results", progress=step,
                            backend=args.backend)
    table = claims_table(results)
    as_json = json.dumps([r.to_dict() for r in results], indent=1)
    atomic_write(out / "audit-claims.md", lambda h: h.write(table + "\n"), mode="w")
    atomic_write(out / "audit-claims.json", lambda h: h.write(as_json), mode="w")
    print(as_json if args.json else table)
    print(f"\n{sum(r.verdict == 'violation' for r in results)} violation(s) in {len(results)} "
          f"audits, {time.perf_counter() - start:.0f} s; wrote {out / 'audit-claims.md'} and "
          f"{out / 'audit-claims.json'}", file=sys.stderr)
    return FOUND if any(r.verdict == "violation" for r in results) else OK


def _audit_external(args: argparse.Namespace):
    from ..audit import audit
    from ..audit.external import CommandMechanism

    if args.claim_epsilon is None or args.arms is None:
        raise DPBanditsError("--command needs --claim-epsilon and --arms")
    samples, T = args.samples or SAMPLES["command"], args.horizon or COMMAND_HORIZON
    limits.check_audit_size(samples, T)
    mechanism = CommandMechanism(args.external, args.arms, args.claim_epsilon,
                                 protocol=args.protocol, feedback=args.feedback,
                                 workers=args.workers, timeout=args.timeout)
    return audit(mechanism, samples=samples, alpha=args.alpha, seed=args.seed, T=T,
                 progress=say_for(args))


def _audit_one(args: argparse.Namespace):
    from ..audit import audit_algorithm

    params = parse_params(args.param, [args.algorithm])
    samples = args.samples or SAMPLES["algorithm"]
    limits.check_audit_size(samples, args.horizon or COMMAND_HORIZON)
    with cluster(args.scheduler) as client:
        return audit_algorithm(args.algorithm, epsilon=args.epsilon,
                               variant=args.variant, K=args.arms, T=args.horizon,
                               params=next(iter(params.values())), samples=samples,
                               alpha=args.alpha, seed=args.seed, white_box=args.white_box,
                               workers=args.workers, client=client, progress=say_for(args),
                               backend=args.backend)


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
