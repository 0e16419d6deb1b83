"""``dpbandits bounds``: simulate an algorithm and hold its regret against the papers' bounds.

Writes ``bounds-<ALGO>.png`` (mean regret, its band and every checked bound on one plot),
``.json`` and ``.md`` to ``--out``. A check whose bound is at least T x (largest gap) at every
checked round is ``vacuous at this size`` (no run could violate it); under it the output gives
the smallest horizon from which the bound is informative and the command that checks it there.
A check is ``violated``, ``respected`` or ``inconclusive at this size`` by where its simultaneous
band lies against the bound (:mod:`dpbandits.bounds.check`); under an inconclusive one the output
gives the runs that would decide it (an estimate) and the command that runs them. Exit status 3
when no check could have failed (every one vacuous or not applicable).
"""

from __future__ import annotations

import argparse
import json
import sys

from .. import limits
from ..errors import DPBanditsError
from ..files import atomic_write, check_names
from ..reference import get
from ..reference.registry import canonical
from .options import (add_backend, FOUND, NOT_TESTED, OK, add_json, add_out, add_scheduler, add_seed, add_workers,
                      check_out, cluster, epsilon, finite_number, integer, probability,
                      unit_number)

HELP = "simulate an algorithm and check its regret against the papers' bounds"

EPILOG = """exit status:
  0  consistent: some bound could have been violated at this size, and none was (each such
     check is respected, its band on the bound's side, or inconclusive at this size, its band
     containing the bound: the output gives the runs that would decide it)
  1  violation: a bound was violated (its band lies beyond it)
  2  bad usage or input (one line on stderr naming the problem; nothing is run)
  3  could not test: every bound checked is vacuous at this size (at least T x largest gap, so
     no run could violate it) or not applicable; the output gives the horizon that would test it"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("algorithm", metavar="ALGO", help="registered algorithm name")
    parser.add_argument("--variant", default=None, help="variant (default: the algorithm's default)")
    parser.add_argument("--epsilon", type=epsilon, default=None,
                        help="privacy parameter (default 1 for a private ALGO; not for a non-private one)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--setting", default=None, help="a named setting (default hu2021-setting2)")
    where.add_argument("--means", type=unit_number, nargs="+", help="Bernoulli arm means in [0, 1]")
    parser.add_argument("--horizon", type=integer(1, limits.MAX_HORIZON), required=True,
                        help="horizon T")
    parser.add_argument("--runs", type=integer(2, limits.MAX_RUNS), default=20,
                        help="independent runs (at least 2; default %(default)s)")
    add_seed(parser)
    parser.add_argument("--alpha", type=probability, default=0.05,
                        help="1 - simultaneous confidence of the regret band (default %(default)s)")
    parser.add_argument("--value", action="append", default=[], metavar="NAME=X",
                        help="value of another symbol of a bound, e.g. lambda_0=0.5 (repeatable)")
    add_workers(parser)
    add_backend(parser)
    add_scheduler(parser)
    add_out(parser)
    add_json(parser)


INSTANCE_SYMBOLS = ("K", "T", "t", "epsilon", "Delta_min", "gaps")
"""Symbols the simulated instance sets (--means/--setting, --horizon, --epsilon); ``--value``
may not set them, or the bound would be evaluated on another instance than the one simulated."""


def _values(pairs: list[str], algorithm: str, variant: str | None) -> dict[str, float]:
    """``--value NAME=X`` as a dict, after checking NAME is a symbol of one of ALGO's bounds
    that the instance does not set and X a finite number > 0 (every bound's symbols are
    declared positive)."""
    from ..bounds import bounds_for

    allowed = sorted({s for b in bounds_for(algorithm, variant) if b.kind in ("upper", "lower")
                      for s in b.symbols} - set(INSTANCE_SYMBOLS))
    names = (f"names {algorithm}'s bounds take: {', '.join(allowed)}" if allowed
             else f"{algorithm}'s bounds take no --value")
    values = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        if not sep or not name:
            raise DPBanditsError(f"--value must look like NAME=X, got {pair!r}")
        if name in INSTANCE_SYMBOLS:
            raise DPBanditsError(f"--value {name}: {name} is set by the instance simulated "
                                 f"({', '.join(INSTANCE_SYMBOLS)} are reserved); {names}")
        if name not in allowed:
            raise DPBanditsError(f"--value {name}: not a symbol of {algorithm}'s bounds; {names}")
        try:
            value = finite_number(text)
        except DPBanditsError as error:
            raise DPBanditsError(f"--value {name}: {error}") from None
        if not value > 0:
            raise DPBanditsError(f"--value {name}: must be a finite number > 0 (the bounds' "
                                 f"symbols are positive), got {text!r}")
        values[name] = value
    return values


def _arms(args: argparse.Namespace) -> int:
    """K of the simulation: the number of ``--means``, or the setting's (default hu2021-setting2,
    as :func:`dpbandits.bounds.simulated.check_algorithm` reads it)."""
    from ..reference import get_setting

    if args.means:
        return len(args.means)
    return get_setting(args.setting or "hu2021-setting2").environment().K


def run(args: argparse.Namespace) -> int:
    from ..bounds.simulated import check_algorithm, plot   # SymPy: loaded only when used

    private = get(args.algorithm).private
    values = _values(args.value, args.algorithm, args.variant)
    if args.epsilon is not None and not private:
        raise DPBanditsError(f"--epsilon does not apply: {args.algorithm} is not private")
    limits.check_simulation_size(args.runs, args.horizon, _arms(args))
    out = check_out(args.out)
    stem = f"bounds-{canonical(args.algorithm)}" + (f"-{args.variant}" if args.variant else "")
    check_names(out, [f"{stem}.json", f"{stem}.md", f"{stem}.png"])
    with cluster(args.scheduler) as client:
        report, _ = check_algorithm(args.algorithm, epsilon=args.epsilon or 1.0,
                                    variant=args.variant,
                                    setting=args.setting, means=args.means, horizon=args.horizon,
                                    runs=args.runs, seed=args.seed, alpha=args.alpha, values=values,
                                    workers=args.workers, client=client, backend=args.backend)
    atomic_write(out / f"{stem}.json", lambda h: json.dump(report.to_dict(), h, indent=2), "w")
    atomic_write(out / f"{stem}.md", lambda h: h.write(report.to_markdown() + "\n"), "w")
    plot(report, out / f"{stem}.png")
    if args.json:
        print(json.dumps(report.to_dict(), indent=2))
    else:
        print(report.to_markdown())
        print(f"\nwrote {out / stem}.png, .json and .md", file=sys.stderr)
    if report.violated:
        return FOUND
    return OK if any(check.informative for check in report.checks) else NOT_TESTED
