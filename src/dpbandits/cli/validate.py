"""``dpbandits validate``: check a third-party implementation against a reference algorithm.

Compares the candidate's behaviour with the reference's on a fixed table and on fresh tables,
audits its privacy and checks its regret against the bounds (:func:`dpbandits.validate.validate`).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from pathlib import Path

from ..errors import DPBanditsError, check_positive_int
from ..validate.core import DEFAULT_HORIZON, DEFAULT_RUNS, DEFAULT_SETTING, MIN_RUNS
from .options import parse_params, say_for

HELP = "validate a third-party implementation against a reference algorithm"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``dpbandits validate``."""
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--command", dest="external", metavar="'PROGRAM ARGS'",
                       help="an external program speaking the line protocol (docs/audit-protocol.md)")
    which.add_argument("--python", metavar="MODULE:OBJECT",
                       help="a Python factory OBJECT(rng) -> single-run act/observe policy "
                            "(with --callable: a function OBJECT(table, rng) -> actions)")
    parser.add_argument("--callable", action="store_true",
                        help="--python names a function of the whole table")
    parser.add_argument("--against", required=True, metavar="ALGO", help="the registered algorithm")
    parser.add_argument("--variant", default=None, help="the reference's variant (default: ALGO's default)")
    parser.add_argument("--epsilon", type=float, default=None,
                        help="privacy parameter epsilon (required for a private ALGO)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--setting", default=None, help=f"a named setting (default {DEFAULT_SETTING})")
    where.add_argument("--means", type=float, nargs="+", help="Bernoulli arm means in [0, 1]")
    parser.add_argument("--horizon", type=int, default=DEFAULT_HORIZON,
                        help=f"rounds T per run (default {DEFAULT_HORIZON})")
    parser.add_argument("--runs", type=int, default=DEFAULT_RUNS,
                        help=f"runs R per sample, at least {MIN_RUNS} (default {DEFAULT_RUNS})")
    parser.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    parser.add_argument("--alpha", type=float, default=0.05,
                        help="family-wise level of the comparisons, audit and regret check (default 0.05)")
    parser.add_argument("--audit-samples", type=int, default=10_000,
                        help="test runs per side of the privacy audit; 0 skips it (default 10000)")
    parser.add_argument("--audit-horizon", type=int, default=16,
                        help="rounds T of the audit's neighbouring tables (default 16)")
    parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                        help="a parameter of the reference algorithm (repeatable)")
    parser.add_argument("--protocol", choices=("table", "interactive"), default="table",
                        help="line protocol of the external program (default table)")
    parser.add_argument("--feedback", choices=("bandit", "full"), default=None,
                        help="what the candidate observes (default: what ALGO observes)")
    parser.add_argument("--timeout", type=float, default=10.0,
                        help="seconds the external program may take per expected line (default 10)")
    parser.add_argument("--workers", type=int, default=1, help="parallel copies of the candidate")
    parser.add_argument("--out", default="dpbandits-out", help="folder for the JSON and the PNG")
    parser.add_argument("--json", action="store_true", help="print the JSON instead of the summary")
    parser.add_argument("--no-progress", action="store_true", help="hide progress messages")


def _python_object(target: str):
    """Import ``MODULE:OBJECT`` (the current folder first on the path)."""
    module_name, sep, attribute = target.partition(":")
    if not sep or not module_name or not attribute:
        raise DPBanditsError(f"--python must look like MODULE:OBJECT, got {target!r}")
    sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except Exception as error:  # the user's module may fail in any way
        raise DPBanditsError(f"--python: cannot import {module_name!r}: "
                             f"{type(error).__name__}: {error}") from None
    finally:
        sys.path.pop(0)
    try:
        return getattr(module, attribute)
    except AttributeError:
        raise DPBanditsError(f"--python: module {module_name!r} has no {attribute!r}") from None


def run(args: argparse.Namespace) -> int:
    """Run the validation, print the summary (or JSON), write JSON and PNG; 0 ok, 1 not ok."""
    from ..audit.adapters import CallableMechanism, PolicyMechanism
    from ..audit.external import CommandMechanism
    from ..errors import check_means
    from ..reference import get, get_setting
    from ..reference.registry import canonical
    from ..validate import plot, validate, write_json

    against = canonical(args.against)
    cls = get(against)
    if args.means is not None:
        K = check_means(args.means, "--means").size
    else:
        K = get_setting(args.setting or DEFAULT_SETTING).environment().K
    feedback = args.feedback or ("full" if cls.feedback == "full" else "bandit")
    claim = args.epsilon if cls.private else None
    workers = check_positive_int(args.workers, "workers")
    if args.external:
        if args.callable:
            raise DPBanditsError("--callable goes with --python, not --command")
        candidate = CommandMechanism(args.external, K, claim, protocol=args.protocol,
                                     feedback=feedback, workers=workers, timeout=args.timeout)
    else:
        target = _python_object(args.python)
        kind = CallableMechanism if args.callable else PolicyMechanism
        candidate = kind(target, K, claim, feedback, workers=workers, label=args.python)
    say = say_for(args)
    result = validate(candidate, against, epsilon=args.epsilon, variant=args.variant,
                      params=parse_params(args.param), setting=args.setting, means=args.means,
                      horizon=args.horizon, runs=args.runs, seed=args.seed, alpha=args.alpha,
                      audit_samples=args.audit_samples, audit_horizon=args.audit_horizon,
                      progress=say)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stem = out / f"validate-{against}"
    write_json(result, stem.with_suffix(".json"))
    plot(result, stem.with_suffix(".png"))
    if args.json:
        import json

        print(json.dumps(result.to_dict(), indent=1))
    else:
        print(result.summary())
    print(f"wrote {stem}.json and {stem}.png", file=sys.stderr)
    return result.exit_status
