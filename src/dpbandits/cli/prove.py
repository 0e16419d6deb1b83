"""``dpbandits prove``: the accountant's upper bound on epsilon at the user's K and T, and whether
it proves the algorithm's claim there (docs/accountant.md#proof-at-your-size).

Prints the bound, the verdict (a proof at this size, or an estimate with what stopped the proof),
the scope (K, T, the table class, the noise draws, and every T' <= T or T exactly) and the CPU
time. Exit 0 (consistent): the claim is proven at this size; 1: the bound exceeds the claim;
3 (could not test): no proof could be made at this size (one line says what stopped it).
"""

from __future__ import annotations

import argparse
import time

from .. import limits
from ..errors import DPBanditsError
from .options import FOUND, NOT_TESTED, OK, epsilon, integer, parse_params

HELP = "prove (or not) an algorithm's privacy claim at a given K and T"

def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("algorithm", metavar="ALGO", help="registered algorithm name")
    parser.add_argument("--epsilon", type=epsilon, default=1.0,
                        help="epsilon of the algorithm (default %(default)s)")
    parser.add_argument("--arms", type=integer(2, limits.MAX_ARMS), required=True,
                        help="number of arms K")
    parser.add_argument("--horizon", type=integer(1, limits.MAX_HORIZON), required=True,
                        help="rounds T")
    parser.add_argument("--variant", default=None, help="variant (default: the algorithm's default)")
    parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                        help="a parameter of the algorithm (repeatable; see `dpbandits list`)")


def run(args: argparse.Namespace) -> int:
    from ..accountant import TooLargeToTrace, traced_upper
    from ..accountant.upper import horizons
    from ..reference.registry import check_arguments, get, make

    params = next(iter(parse_params(args.param, [args.algorithm]).values()))
    cls = get(args.algorithm)
    names = [v.name for v in cls.variants]
    if args.variant is not None and args.variant not in names:
        raise DPBanditsError(f"--variant must be one of {', '.join(names)} for {cls.name}, got "
                             f"{args.variant!r}")
    check_arguments(args.algorithm, args.arms, epsilon=args.epsilon, variant=args.variant,
                    T=args.horizon, **params)
    claim = make(args.algorithm, args.arms, epsilon=args.epsilon, rng=0, variant=args.variant,
                 T=args.horizon, **params).claim
    if claim.claimed is None:
        raise DPBanditsError(f"{args.algorithm} makes no privacy claim: nothing to prove")
    claimed = claim.claimed
    started = time.process_time()
    try:
        bound = traced_upper(args.algorithm, epsilon=args.epsilon, variant=args.variant,
                             K=args.arms, T=args.horizon, params=params)
    except TooLargeToTrace as e:
        print(f"no proof at K = {args.arms}, T = {args.horizon}: no bound at this size ({e}); "
              f"{time.process_time() - started:.1f} s CPU")
        return NOT_TESTED
    seconds = time.process_time() - started
    scope = bound.scope
    if bound.proof and "T' <= T" not in scope and "at T exactly" not in scope:
        scope += f"; {horizons(cls)}"
    delta = f", delta <= {bound.delta:.3g}" if bound.delta else ""
    print(f"{cls.name} [{args.variant or cls.default_variant}], claim {claimed}: "
          f"eps <= {bound.epsilon:.6g}{delta}")
    print(f"  verdict: {bound.status}")
    if not bound.proof and bound.findings:
        print(f"  what stopped the proof: {bound.findings[0]}")
    print(f"  scope: {scope}")
    print(f"  {seconds:.1f} s CPU")
    if bound.epsilon > claimed.epsilon or bound.delta > claimed.delta:
        print(f"the bound exceeds the claim ({bound.epsilon:.17g} > {claimed.epsilon:g})"
              if bound.epsilon > claimed.epsilon else
              f"the bound exceeds the claim (delta {bound.delta:.3g} > {claimed.delta:.3g})")
        return FOUND
    if bound.proof:
        print(f"the claim is proven at K = {args.arms}, T = {args.horizon}")
        return OK
    print(f"no proof at K = {args.arms}, T = {args.horizon}: {bound.status}")
    return NOT_TESTED
