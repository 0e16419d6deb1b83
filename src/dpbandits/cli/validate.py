"""``dpbandits validate``: check a third-party implementation against a reference algorithm.

Compares the candidate's behaviour with the reference's on a fixed table and on fresh tables,
audits its privacy and checks its regret against the bounds (:func:`dpbandits.validate.validate`).
"""

from __future__ import annotations

import argparse
import sys

from .. import limits
from ..errors import DPBanditsError
from ..validate.defaults import DEFAULT_AUDIT_SAMPLES, DEFAULT_HORIZON, DEFAULT_RUNS, DEFAULT_SETTING, MIN_RUNS
from .options import (add_backend, add_candidate_options, add_json, add_out, add_progress,
                      add_seed, add_workers, auto_integer, check_out, epsilon, integer,
                      parse_params, probability, refused_without_sandbox, samples_or_zero,
                      sandbox_line, say_for, tampering_record, unit_number, with_status)

HELP = "validate a third-party implementation against a reference algorithm"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``dpbandits validate``."""
    add_candidate_options(parser, required=True, feedback_default=None,
                          feedback_help="what the candidate observes (default: what ALGO observes)")
    parser.add_argument("--against", required=True, metavar="ALGO", help="the registered algorithm")
    parser.add_argument("--variant", default=None, help="the reference's variant (default: ALGO's default)")
    parser.add_argument("--epsilon", type=epsilon, default=None,
                        help="privacy parameter epsilon (required for a private ALGO)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--setting", default=None, help=f"a named setting (default {DEFAULT_SETTING})")
    where.add_argument("--means", type=unit_number, nargs="+", help="Bernoulli arm means in [0, 1]")
    parser.add_argument("--horizon", type=integer(1, limits.MAX_HORIZON), default=None,
                        help=f"rounds T per run (default {DEFAULT_HORIZON}, or twice the horizon "
                             f"from which ALGO's actions depend on the rewards when they do not "
                             f"within {DEFAULT_HORIZON})")
    parser.add_argument("--runs", type=integer(MIN_RUNS, limits.MAX_RUNS), default=DEFAULT_RUNS,
                        help=f"runs R per sample, at least {MIN_RUNS} (default %(default)s)")
    add_seed(parser)
    parser.add_argument("--alpha", type=probability, default=0.05,
                        help="family-wise level of the comparisons, audit and regret check "
                             "(default %(default)s)")
    parser.add_argument("--audit-samples", type=samples_or_zero, default=None,
                        help=f"the most test runs per side of the privacy audit (it draws "
                             f"what its power needs, in looks that stop once the verdict is "
                             f"decided), at least {limits.MIN_SAMPLES}; 0 skips it (default "
                             f"{DEFAULT_AUDIT_SAMPLES})")
    parser.add_argument("--audit-horizon", type=auto_integer(1, limits.MAX_HORIZON), default=None,
                        help="rounds T of the audit's neighbouring tables (default auto: the "
                             "horizon that reaches ALGO's first data-dependent output)")
    parser.add_argument("--param", action="append", default=[], metavar="[ALGO:]NAME=VALUE",
                        help="a parameter of the reference algorithm (repeatable; see `dpbandits list`)")
    add_workers(parser, "parallel copies of the candidate")
    add_backend(parser, "simulation backend of the reference side")
    add_out(parser, help="folder for the JSON and the PNG")
    add_json(parser, "print the JSON instead of the summary")
    add_progress(parser)


def run(args: argparse.Namespace) -> int:
    """Check every option (:func:`dpbandits.validate.check_request`), then load the candidate,
    then run the validation; print the summary (or JSON), write JSON and PNG; 0 ok, 1 not ok."""
    from ..reference import get
    from ..reference.registry import canonical
    from ..validate.loading import check_request

    against = canonical(args.against)
    cls = get(against)
    semi = cls.feedback == "semi"
    if semi and args.external:
        raise DPBanditsError(f"{against} is a matroid semi-bandit and the line protocol has no "
                             f"message for a basis: name a Python class that plays bases with "
                             f"--python FILE.py:OBJECT")
    if semi and args.feedback is not None:
        raise DPBanditsError(f"--feedback does not apply: a candidate of {against} observes the "
                             f"weights of the basis it plays (semi-bandit)")
    if semi and args.callable:
        raise DPBanditsError(f"--callable does not apply: a candidate of {against} is an "
                             f"act/observe class that plays bases")
    if args.epsilon is not None and not cls.private:
        raise DPBanditsError(f"--epsilon does not apply: {against} is not private")
    if args.python and args.protocol != "table":
        raise DPBanditsError("--protocol applies to --command, not to --python")
    if args.external and args.callable:
        raise DPBanditsError("--callable goes with --python, not --command")
    params = next(iter(parse_params(args.param, [against]).values()))
    request = check_request(against, epsilon=args.epsilon, variant=args.variant, params=params,
                            setting=args.setting, means=args.means, horizon=args.horizon,
                            runs=args.runs, seed=args.seed, alpha=args.alpha,
                            audit_samples=args.audit_samples, audit_horizon=args.audit_horizon,
                            backend=args.backend)
    out = check_out(args.out)
    refused = refused_without_sandbox(args)
    if refused is not None:
        return refused
    return _run(args, request, out)


def _run(args: argparse.Namespace, request, out) -> int:
    """Build the candidate for the checked ``request`` and run the validation."""
    from ..candidates import Command, load, short_name
    from ..validate import plot, write_json
    from ..validate.core import run_checked

    against = request.against
    feedback = (request.cls.feedback if request.semi
                else args.feedback or ("full" if request.cls.feedback == "full" else "bandit"))
    named = Command(args.external, args.protocol, args.timeout) if args.external else args.python
    record = tampering_record(args)
    candidate = load(named, K=request.K, epsilon=request.epsilon, params=request.params,
                     feedback=feedback, workers=args.workers, table_function=args.callable,
                     timeout=args.timeout, reference=request.against)
    try:
        result = run_checked(candidate, request, say_for(args))
    finally:            # every process of the candidate ends before anything is written
        close = getattr(candidate, "close", None)
        if close is not None:
            close()
        if record is not None:
            record.check(args.external or args.python)
    stem = f"validate-{against}-{short_name(args.external or args.python)}"
    written = out / f"{stem}.json", out / f"{stem}.png"
    sandbox = sandbox_line(args)
    document = with_status({**result.to_dict(), "sandbox": sandbox}, result.exit_status)
    write_json(document, written[0])
    plot(result, written[1])
    if args.json:
        import json

        print(json.dumps(document, indent=1))
    else:
        print(result.summary())
        print(sandbox)
    print(f"wrote {written[0]} and {written[1]}", file=sys.stderr)
    return result.exit_status
