"""``dpbandits audit``: a lower bound on epsilon from neighbouring runs, tested against the claim.

Audits one registered algorithm (``ALGO``), every algorithm and variant (``--all``), or a
candidate implementation: an external program speaking the line protocol (``--command``) or a
Python class or factory (``--python``). ``--against ALGO`` audits the candidate with what the
reference knows about ALGO: its claim, its worst-case pairs and a horizon that reaches its first
data-dependent output (:func:`dpbandits.audit.against.audit_against`). Against a matroid
ALGO the candidate is a Python class that plays bases of the matroid of ``validate``'s default
setting (chandak-synthetic), audited on pairs that give a row 0.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from contextlib import contextmanager
from dataclasses import replace

from .. import limits
from ..audit.external import DEFAULT_TIMEOUT
from ..errors import DPBanditsError
from ..files import atomic_write
from ..reference import get
from ..reference.registry import ALGORITHMS
from ..validate.defaults import DEFAULT_AUDIT_SAMPLES
from .options import (add_backend, add_candidate_options, FOUND, NOT_TESTED, OK, add_json, add_out, add_progress, add_scheduler,
                      add_seed, add_workers, auto_integer, check_out, cluster, epsilon,
                      parse_params, probability, progress_bar, refused_without_sandbox,
                      sandbox_line, say_for, tampering_record, with_status)

HELP = "estimate a lower bound on epsilon and test the claim"

SAMPLES = {"algorithm": 50_000, "all": 20_000, "command": 20_000, "against": DEFAULT_AUDIT_SAMPLES}
"""Test-sample runs per side that ``--samples auto`` means, for ALGO, --all, a candidate
(--command or --python) and a candidate audited --against ALGO (the audit's own default,
:data:`dpbandits.audit.against.AGAINST_SAMPLES`, read from the light module of validate's
defaults, which a test keeps equal to it: the command line starts without the audit's
statistics)."""

COMMAND_HORIZON = 16
"""Rounds per run of an external program's audit that ``--horizon auto`` means."""

DEFAULTS = dict(variant=None, epsilon=1.0, claim_epsilon=None, arms=None, horizon=None,
                samples=None, alpha=0.05, param=[], white_box=False, protocol="table",
                feedback="bandit", timeout=DEFAULT_TIMEOUT, workers=1, scheduler=None,
                out="dpbandits-out", against=None, python=None, callable=False,
                require_sandbox=False, allow_unsandboxed=False, from_accountant=False)
"""Every option's default, to tell which options a user gave."""

NOT_FOR = {
    "algorithm": ("claim_epsilon", "protocol", "feedback", "timeout", "against", "callable",
                  "require_sandbox", "allow_unsandboxed"),
    "rows": ("variant", "arms", "horizon", "param", "white_box", "from_accountant"),
    "all": ("variant", "claim_epsilon", "arms", "horizon", "param", "white_box", "protocol",
            "feedback", "timeout", "against", "callable", "require_sandbox", "allow_unsandboxed",
            "from_accountant"),
    "command": ("variant", "epsilon", "param", "white_box", "scheduler", "out", "callable",
                "from_accountant"),
    "python": ("variant", "epsilon", "param", "white_box", "scheduler", "out", "protocol",
               "from_accountant"),
    "against": ("claim_epsilon", "white_box", "scheduler", "out", "feedback", "from_accountant"),
}
"""Options that do not apply to each way of naming what is audited ("rows": ALGO with --out,
which writes ALGO's rows of the claims table as --all makes them)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("algorithm", nargs="?", metavar="ALGO", help="registered algorithm name")
    parser.add_argument("--all", action="store_true", help="audit every algorithm and variant")
    add_candidate_options(parser, required=False, feedback_default="bandit",
                          feedback_help="what the external program observes (default bandit)")
    parser.add_argument("--against", default=None, metavar="ALGO",
                        help="the registered algorithm the candidate implements: audit it with "
                             "ALGO's claim at --epsilon, its worst-case pairs and a horizon that "
                             "reaches its first data-dependent output")
    parser.add_argument("--variant", default=None, help="variant (default: the algorithm's default)")
    parser.add_argument("--epsilon", type=epsilon, default=DEFAULTS["epsilon"],
                        help="epsilon of the algorithm (default %(default)s)")
    parser.add_argument("--claim-epsilon", type=epsilon, default=None,
                        help="the epsilon a candidate claims (required with --command or "
                             "--python without --against)")
    parser.add_argument("--arms", type=auto_integer(2, limits.MAX_ARMS), default=None,
                        help="number of arms K (required with --command or --python without "
                             "--against; default auto: the algorithm's audit preset, 2 with "
                             "--against unless its worst cases need more)")
    parser.add_argument("--horizon", type=auto_integer(1, limits.MAX_HORIZON), default=None,
                        help=f"rounds T per run (default auto: the algorithm's audit preset, "
                             f"{COMMAND_HORIZON} for a candidate, with --against the horizon "
                             f"that reaches ALGO's first data-dependent output)")
    parser.add_argument("--samples", type=auto_integer(100, limits.MAX_SAMPLES), default=None,
                        help=f"test-sample runs per side (default auto: {SAMPLES['algorithm']} "
                             f"for ALGO, {SAMPLES['all']} per audit with --all, "
                             f"{SAMPLES['command']} for a candidate, {SAMPLES['against']} "
                             f"with --against)")
    parser.add_argument("--alpha", type=probability, default=DEFAULTS["alpha"],
                        help="1 - confidence (default %(default)s)")
    add_seed(parser)
    parser.add_argument("--param", action="append", default=[], metavar="[ALGO:]NAME=VALUE",
                        help="a parameter of the algorithm (repeatable; see `dpbandits list`)")
    parser.add_argument("--white-box", action="store_true",
                        help="audit the noisy statistics the algorithm releases, not its actions")
    parser.add_argument("--from-accountant", action="store_true",
                        help="trace ALGO at the audit's K, T and epsilon first: where the "
                             "accountant's bound exceeds the claim, audit with a pair built from "
                             "each row it names (before the default pairs); where it proves the "
                             "claim, audit nothing and exit 0 (docs/accountant.md)")
    add_workers(parser, "worker processes (simulations, or external program instances)")
    add_backend(parser, "simulation backend of a registered algorithm's runs")
    add_scheduler(parser, "simulate on a Dask cluster (needs dpbandits[distributed]); same result")
    add_out(parser, help="output folder of the claims table (audit-claims.json and .md): --all "
                         "writes every row; ALGO --out DIR rewrites ALGO's rows alone, as --all "
                         "makes them, and keeps the others")
    add_json(parser, "print the result as JSON")
    add_progress(parser)


def run(args: argparse.Namespace) -> int:
    chosen = [bool(args.algorithm), bool(args.all), bool(args.external), bool(args.python)]
    if sum(chosen) != 1:
        raise DPBanditsError("give exactly one of ALGO, --all, --command or --python")
    mode = ("all" if args.all else "command" if args.external else "python" if args.python
            else "algorithm")
    what = {"algorithm": "ALGO", "all": "--all", "command": "--command", "python": "--python"}[mode]
    not_for = set(NOT_FOR[mode])
    if args.against is not None and mode in ("command", "python"):
        not_for = (not_for - {"variant", "epsilon", "param"}) | set(NOT_FOR["against"])
        what += " --against ALGO"
    ignored = [f"--{name.replace('_', '-')}" for name in sorted(not_for)
               if getattr(args, name) != DEFAULTS[name]]
    if ignored:
        raise DPBanditsError(f"{', '.join(ignored)} {'does' if len(ignored) == 1 else 'do'} not "
                             f"apply to an audit of {what}")
    if args.all:
        return _audit_all(args)
    if mode == "algorithm" and args.out != DEFAULTS["out"]:
        given = [f"--{name.replace('_', '-')}" for name in NOT_FOR["rows"]
                 if getattr(args, name) != DEFAULTS[name]]
        if given:
            raise DPBanditsError(f"{', '.join(given)} {'does' if len(given) == 1 else 'do'} not "
                                 f"apply to audit ALGO --out DIR, which rewrites ALGO's rows of "
                                 f"DIR/audit-claims.json as --all makes them (every variant, "
                                 f"its audit preset)")
        return _audit_rows(args)
    if args.from_accountant and args.white_box:
        raise DPBanditsError("--from-accountant and --white-box do not go together: the "
                             "accountant's pairs are tables of rewards, audited on the actions")
    if args.from_accountant and not get(args.algorithm).private:
        raise DPBanditsError(f"--from-accountant: {args.algorithm} makes no privacy claim, so "
                             f"the accountant has no claim to refute")
    candidate = mode in ("command", "python")
    if candidate:
        refused = refused_without_sandbox(args)
        if refused is not None:
            return refused
    if args.from_accountant:
        return _from_accountant(args)
    record = tampering_record(args) if candidate else None
    try:
        result = _audit_candidate(args) if candidate else _audit_one(args)
    finally:                        # every process of the candidate has ended
        if record is not None:      # (a change is reported before the candidate's own failure)
            record.check(args.external or args.python)
    if candidate:
        result = replace(result, notes=tuple(result.notes) + (sandbox_line(args),))
    epsilon = None if candidate else args.epsilon
    status = exit_status(result)
    # Printed once, whole, by the auditor after every process of the candidate has ended.
    print(json.dumps(with_status(result.to_dict(), status), indent=1) if args.json
          else describe(result, epsilon))
    if status == NOT_TESTED:
        from ..audit.against import could_not_test

        print(f"could not test: {could_not_test(result)}; the outputs gave no evidence either "
              f"way (try a longer --horizon, more --samples or --against ALGO)", file=sys.stderr)
    return status


def exit_status(result) -> int:
    """1 for a violation, 3 when the test sample held no evidence
    (:func:`dpbandits.audit.against.could_not_test`), 0 otherwise."""
    from ..audit.against import could_not_test

    if result.verdict == "violation":
        return FOUND
    if could_not_test(result) is not None:
        return NOT_TESTED
    return OK


def _audit_all(args: argparse.Namespace) -> int:
    from ..audit import audit_all, claims_table

    start = time.perf_counter()
    samples = args.samples or SAMPLES["all"]
    for name in ALGORITHMS:
        _check_size(name, samples, None, 2, args.epsilon, {})
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


def _audit_rows(args: argparse.Namespace) -> int:
    """``audit ALGO --out DIR``: audit every variant of ALGO as ``--all`` does (its preset, the
    --all sample size unless --samples is given) and replace ALGO's rows of
    DIR/audit-claims.json (and .md), keeping every other row as it is, field for field."""
    from ..audit import AuditResult, audit_all, claims_table, replace_rows
    from ..reference.registry import canonical

    start = time.perf_counter()
    name = canonical(args.algorithm)
    get(name)
    samples = args.samples or SAMPLES["all"]
    _check_size(name, samples, None, 2, args.epsilon, {})
    out = check_out(args.out)
    existing_path = out / "audit-claims.json"
    rows: list[dict] = []
    if existing_path.is_file():
        try:
            rows = json.loads(existing_path.read_text())
            if not (isinstance(rows, list) and all(isinstance(r, dict) and "mechanism" in r
                                                   for r in rows)):
                raise ValueError("not a list of audit rows")
        except ValueError as error:
            raise DPBanditsError(f"{existing_path} is not a claims table that audit --all wrote "
                                 f"({error}); rerun dpbandits audit --all --out {args.out}") from None
    jobs = len(get(name).variants)
    with cluster(args.scheduler) as client, \
            progress_bar(jobs, f"audit {name}", disabled=args.no_progress, unit=" audits") as bar:
        def step(message: str) -> None:
            bar.set_description_str(message.split("] ", 1)[-1][:40])
            bar.update(1)

        results = audit_all(args.epsilon, samples=samples, alpha=args.alpha, seed=args.seed,
                            workers=args.workers, client=client, names=[name],
                            include_controls=False, progress=step, backend=args.backend)
    merged = replace_rows(rows, results, [name])
    as_json = json.dumps(merged, indent=1)
    table = claims_table([AuditResult.from_dict(row) for row in merged])
    atomic_write(out / "audit-claims.md", lambda h: h.write(table + "\n"), mode="w")
    atomic_write(existing_path, lambda h: h.write(as_json), mode="w")
    print(json.dumps([r.to_dict() for r in results], indent=1) if args.json
          else claims_table(results))
    print(f"\n{sum(r.verdict == 'violation' for r in results)} violation(s) in {len(results)} "
          f"audits of {name}, {time.perf_counter() - start:.0f} s; rewrote its rows of "
          f"{existing_path} and {out / 'audit-claims.md'} ({len(merged) - len(results)} other "
          f"rows kept as they were)", file=sys.stderr)
    return FOUND if any(r.verdict == "violation" for r in results) else OK


def _audit_candidate(args: argparse.Namespace):
    """An audit of a candidate named by --command or --python, generic or --against ALGO."""
    from ..audit.pairs import DEFAULT_ARMS, candidate_pairs
    from ..candidates import Command, load
    from ..reference.registry import canonical
    from ..audit.against import Claiming, audit_against, audit_observed, blind_spots

    option = "--command" if args.external else "--python"
    named = Command(args.external, args.protocol, args.timeout) if args.external else args.python
    if args.against is None:
        if args.claim_epsilon is None or args.arms is None:
            raise DPBanditsError(f"{option} needs --claim-epsilon and --arms (or --against ALGO)")
        samples, T = args.samples or SAMPLES["command"], args.horizon or COMMAND_HORIZON
        limits.check_audit_size(samples, T, args.arms)
        mechanism = load(named, K=args.arms, epsilon=args.claim_epsilon, feedback=args.feedback,
                         workers=args.workers, table_function=args.callable,
                         timeout=args.timeout)
        pairs = candidate_pairs(mechanism.K, T)
        with _closing(mechanism):
            result = audit_observed(Claiming(mechanism), pairs, samples=samples,
                                    n_selection=max(2000, samples // 5), alpha=args.alpha,
                                    seed=args.seed, progress=say_for(args))
        return replace(result, notes=tuple(result.notes) + (blind_spots(T, mechanism.K),))
    against = canonical(args.against)
    cls = get(against)
    params = next(iter(parse_params(args.param, [against]).values()))
    eps = args.epsilon if cls.private else None
    if eps is None:
        raise DPBanditsError(f"--against {against}: {against} makes no privacy claim; there is "
                             f"nothing to audit")
    if cls.feedback == "semi":
        from ..validate.bases import DEFAULT_MATROID_SETTING
        from ..validate.loading import semi_bandit_matroid

        if args.external:
            raise DPBanditsError(f"--against {against}: a matroid semi-bandit, and the line "
                                 f"protocol has no message for a basis: name a Python class "
                                 f"that plays bases with --python FILE.py:OBJECT")
        if args.arms is not None:
            raise DPBanditsError(f"--arms does not apply: a candidate of {against} plays bases "
                                 f"of the {DEFAULT_MATROID_SETTING} matroid")
        K = semi_bandit_matroid(None, None, params).L
    else:
        K = args.arms or DEFAULT_ARMS.get(against, 2)
    samples = args.samples or SAMPLES["against"]
    _check_size(against, samples, args.horizon, K, eps, params)
    mechanism = load(named, K=K, epsilon=eps, params=params, feedback=cls.feedback,
                     workers=args.workers, table_function=args.callable,
                     timeout=args.timeout, reference=against)
    with _closing(mechanism):
        return audit_against(mechanism, against, epsilon=eps, variant=args.variant,
                             params=params, T=args.horizon, samples=samples, alpha=args.alpha,
                             seed=args.seed, progress=say_for(args))


@contextmanager
def _closing(mechanism):
    """End every process of the candidate (hosts and what they started) when the block ends,
    before anything is printed or written."""
    try:
        yield mechanism
    finally:
        close = getattr(mechanism, "close", None)
        if close is not None:
            close()


def _check_size(name: str, samples: int, T: int | None, K: int, epsilon: float,
                params: dict) -> None:
    """Refuse, before any work, an audit of ``name`` whose samples, horizon (given, or at least
    the one the tool will choose: :func:`dpbandits.audit.against.planned_horizon`) or tables do
    not fit in the limits (:func:`dpbandits.limits.check_audit_size`)."""
    from ..audit.against import planned_horizon
    from ..reference.registry import canonical

    planned, why = planned_horizon(canonical(name), K, epsilon, params, T)
    limits.check_audit_size(samples, planned, K, horizon=why)


def _audit_one(args: argparse.Namespace):
    from ..audit import audit_algorithm

    params = parse_params(args.param, [args.algorithm])
    samples = args.samples or SAMPLES["algorithm"]
    if args.white_box:
        limits.check_audit_size(samples, args.horizon or COMMAND_HORIZON, args.arms or 2)
    else:
        _check_size(args.algorithm, samples, args.horizon, args.arms or 2,
                    args.epsilon if get(args.algorithm).private else 1.0,
                    next(iter(params.values())))
    with cluster(args.scheduler) as client:
        return audit_algorithm(args.algorithm, epsilon=args.epsilon,
                               variant=args.variant, K=args.arms, T=args.horizon,
                               params=next(iter(params.values())), samples=samples,
                               alpha=args.alpha, seed=args.seed, white_box=args.white_box,
                               workers=args.workers, client=client, progress=say_for(args),
                               backend=args.backend)


def _from_accountant(args: argparse.Namespace) -> int:
    """``audit ALGO --from-accountant``: the accountant traced at the audit's size, then the
    audit with its pairs before the default ones; nothing audited (exit 0) where it proves the
    claim (:mod:`dpbandits.audit.from_accountant`)."""
    from ..audit.from_accountant import audit_from_accountant

    params = parse_params(args.param, [args.algorithm])
    samples = args.samples or SAMPLES["algorithm"]
    _check_size(args.algorithm, samples, args.horizon, args.arms or 2, args.epsilon,
                next(iter(params.values())))
    with cluster(args.scheduler) as client:
        result, found = audit_from_accountant(
            args.algorithm, epsilon=args.epsilon, variant=args.variant, K=args.arms,
            T=args.horizon, params=next(iter(params.values())), samples=samples,
            alpha=args.alpha, seed=args.seed, workers=args.workers, client=client,
            progress=say_for(args), backend=args.backend)
    if result is None:
        if args.json:
            print(json.dumps(with_status({"mechanism": args.algorithm, "audited": False,
                                          "notes": list(found.notes)}, OK), indent=1))
        else:
            print("\n".join(found.notes))
        return OK
    status = exit_status(result)
    print(json.dumps(with_status(result.to_dict(), status), indent=1) if args.json
          else describe(result, args.epsilon))
    if status == NOT_TESTED:
        from ..audit.against import could_not_test

        print(f"could not test: {could_not_test(result)}; the outputs gave no evidence either "
              f"way (try a longer --horizon or more --samples)", file=sys.stderr)
    return status


def describe(result, epsilon: float | None = None) -> str:
    """The printed form of one audit result: summary, pair, event, sample counts, and for a
    registered algorithm (run at ``epsilon``) the bracket [audit lower bound, exact value, traced
    upper bound] of docs/accountant.md."""
    from ..audit.against import could_not_test

    counts = result.counts
    reason = could_not_test(result)
    estimate = result.epsilon_estimate
    shown = ("none (no counts to estimate from)" if estimate != estimate else f"{estimate:.3f}")
    lines = [result.summary() if reason is None else
             f"{result.mechanism}: COULD NOT TEST: {reason}",
             f"  pair:  {result.pair['description']} (T = {result.pair['T']}, K = {result.pair['K']})",
             f"  event: {result.event}",
             f"  test sample: {counts.get('in_S_D0', '-')} of {counts['n_D0']} runs on D0 and "
             f"{counts.get('in_S_D1', '-')} of {counts['n_D1']} on D1 in the event; selection "
             + (f"{result.n_selection} runs per side and pair, {counts['candidate_pairs']} "
                f"candidate pairs" if not counts.get("screened_runs") else
                f"{counts['screened_runs']} runs per side on each of {counts['candidate_pairs']} "
                f"candidate pairs, {result.n_selection} on the chosen one"),
             f"  point estimate (not a bound): {shown}; {result.seconds:.1f} s"]
    lines += [f"  note: {note}" for note in result.notes]
    if reason is None and epsilon is not None:
        from ..accountant import TooLargeToTrace, audit_bracket

        try:
            bracket = audit_bracket(result.to_dict(), epsilon)
        except TooLargeToTrace as e:
            lines.append(f"  bracket: no traced upper bound at this size ({e})")
        else:
            if bracket is not None:
                lines.append(f"  bracket [audit lower bound, exact, traced upper bound]: "
                             f"{bracket.text()}")
    return "\n".join(lines)
