"""``dpbandits list``: every registered algorithm, its paper, setting, variants and claims, and
which algorithms run only in the reference (their kernel declined) and why.

The accountant's bounds (about 6 s of tracing) are kept on disk beside this module, keyed by a
hash of every source file of the package, Python's and NumPy's versions: any change of the code
that computes them computes them again, and the output is the same bytes either way
(tests/test_list_cache.py). An algorithm registered from outside the package is never cached.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..files import atomic_write
from ..reference import algorithms, make
from .options import OK, add_json, epsilon

HELP = "list every algorithm with its paper and claim"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--epsilon", type=epsilon, default=1.0,
                        help="epsilon at which the claims are evaluated (default %(default)s)")
    add_json(parser, "print JSON instead of a table")


def run(args: argparse.Namespace) -> int:
    infos = algorithms(args.epsilon)
    upper = _traced_bounds([info for info in infos if info.private], args.epsilon)
    if args.json:
        print(json.dumps([dict(info.__dict__, traced_upper=upper.get(info.name, {}))
                          for info in infos], indent=2))
        return OK
    print(f"Privacy claims evaluated at epsilon = {args.epsilon:g}; [row] = one reward vector "
          "replaced.\nparam NAME: default; domain (set one with --param ALGO:NAME=VALUE).\n"
          "claim: what the paper claims, and whether it is true for this variant by the proof or "
          "the counterexample on the algorithm's docs page (not the accountant's verdict).\n"
          "traced: the accountant's upper bound on epsilon from the reference's own noise draws, "
          "with its status (a proof at the stated K and T where every action sequence was "
          "enumerated and the code was checked where it ran: noise laws, information flow, every "
          "branch run; else an estimate naming what is missing) and scope "
          "(docs/accountant.md); audit lower bounds: `dpbandits audit`.\n")
    for info in infos:
        horizon = ", needs T" if info.needs_horizon else ""
        print(f"{info.name}  ({info.title}; {info.feedback}{horizon})")
        print(f"    source:   {info.paper}")
        for variant, claim in info.claims.items():
            default = " (default)" if variant == info.default_variant else ""
            if info.private:
                claim = f"claim {claim}"
            print(f"    {variant + default + ':':<22}{claim}")
            if variant in upper.get(info.name, {}):
                print(f"    {'':<22}{upper[info.name][variant]['text']}")
        if info.reference_only:
            print(f"    {'backend:':<22}reference only ({info.reference_only}); --backend "
                  f"compiled refuses it")
        if info.epsilon_range:
            low, high = info.epsilon_range
            print(f"    {'epsilon:':<22}in [{low:g}, {high:g}]")
        for parameter in info.parameters:
            print(f"    {'param ' + parameter['name'] + ':':<22}{parameter['default']!r}; "
                  f"{parameter['domain']}")
    return OK


CACHE = Path(__file__).resolve().parent / "__pycache__" / "list-traced.json"
"""Where the accountant's bounds of ``dpbandits list`` are kept (beside the package, like
numba's kernels; nothing is kept where the package's folder is read-only)."""


def sources_key(package: Path = Path(__file__).resolve().parents[1]) -> str:
    """A hash of every source file of ``package`` (this one), with Python's and NumPy's
    versions."""
    import hashlib

    import numpy

    digest = hashlib.sha256(f"{sys.version}\0{numpy.__version__}\0".encode())
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _traced_bounds(infos, epsilon: float) -> dict[str, dict[str, dict]]:
    """Name -> variant -> :func:`_traced` of every algorithm of ``infos``, from the cache where
    it holds them for these sources and ``epsilon``."""
    from ..reference.registry import get

    key = sources_key()
    try:
        kept = json.loads(CACHE.read_text())
    except (OSError, ValueError):
        kept = {}
    bounds = kept.get("bounds", {}) if isinstance(kept, dict) and kept.get("key") == key else {}
    upper, fresh = {}, False
    for info in infos:
        upper[info.name] = {}
        for variant in info.variants:
            entry = f"{epsilon!r} {info.name} {variant}"
            if not get(info.name).__module__.startswith(f"{__package__.split('.')[0]}."):
                upper[info.name][variant] = _traced(info.name, variant, epsilon)   # not ours
                continue
            if entry not in bounds:
                bounds[entry], fresh = _traced(info.name, variant, epsilon), True
            upper[info.name][variant] = bounds[entry]
    if fresh:
        try:
            CACHE.parent.mkdir(exist_ok=True)
            atomic_write(CACHE, lambda handle: json.dump({"key": key, "bounds": bounds}, handle))
        except OSError:
            pass
    return upper


def _traced(name: str, variant: str, epsilon: float) -> dict:
    """The accountant's bound for one variant, and its verdict: a proof at the algorithm's
    proof size (``proof_size``: K = 2 and the largest T whose action sequences and {0, 1}
    tables fit the enumeration budget) where its release schedule did not move there, else the
    estimate at the default (or declared) trace setting."""
    from ..accountant import TRACE_SETTINGS, proof_size, traced_upper

    bound = None
    size = proof_size(name, variant=variant) if name not in TRACE_SETTINGS else None
    if size is not None:
        bound = traced_upper(name, epsilon=epsilon, variant=variant, K=size[0], T=size[1])
    if bound is None or not bound.proof:
        bound = traced_upper(name, epsilon=epsilon, variant=variant, enumerate=False)
    claim = make(name, bound.K, epsilon=epsilon, rng=0, variant=variant, T=bound.T).claim
    text = f"traced: eps <= {bound.epsilon:.4g}"
    verdict = _verdict(claim, bound)
    if bound.delta:
        text += f" at delta = {bound.delta:.3g}"
    return {"epsilon": bound.epsilon, "delta": bound.delta, "verdict": verdict,
            "status": bound.status, "scope": bound.scope, "K": bound.K, "T": bound.T,
            "schedule": bound.schedule, "assumption": bound.assumption,
            "text": f"{text}; {verdict} ({bound.status}: {bound.scope})"}


def _verdict(claim, bound) -> str:
    """What the accountant's bound says of the claim, in words that promise no more than it
    proves: ``holds at K = .., T = ..`` only with a proof at that size and where the project does
    not call the claim false or unproven (then the bound meets the claim at this size only)."""
    claimed = claim.claimed
    below = (claimed is not None and bound.epsilon <= claimed.epsilon      # exact
             and bound.delta <= claimed.delta)
    size = f"K = {bound.K}, T = {bound.T}"
    if not below:
        return "claim not supported by the accountant"
    if claim.status != "holds":
        return (f"the accountant's bound meets the claim at {size} only; the claim is "
                f"{claim.status} in general (docs/errata.md)")
    if bound.proof:
        return f"claim holds at {size} by the accountant's proof"
    return f"claim consistent with the accountant's estimate at {size} (not a proof)"
