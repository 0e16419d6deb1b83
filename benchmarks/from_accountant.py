"""What the accountant's pairs find that the default pairs do not (``audit --from-accountant``).

Usage: python benchmarks/from_accountant.py [--samples 20000 100000] [--cases NAME ...]

For each broken algorithm below, three audits at the audit's default K and T with the same seed
and the same test sample: the default pairs alone (what ``dpbandits audit ALGO`` uses), the
accountant's pairs alone, and both (what ``dpbandits audit ALGO --from-accountant`` uses,
docs/accountant.md#from-a-finding-to-a-counterexample). Printed: the 95% lower bound on
epsilon (one hypothesis, Clopper-Pearson), the verdict, which pair was chosen, and the seconds
of the audit (the accountant's trace included).

The breaks: the planted changes of Anytime-Lazy-UCB of ``tests/test_accountant_verifier.py``
(a draw operated on before its release, a leak of the reward in (0.6, 0.7) or strictly inside
(0, 1), the noise scale halved from round 7; not the truncated Laplace, whose planted class
redraws the whole batch while any of its draws is large and so never ends at thousands of
runs) and the paper-literal variants whose claims are false (docs/errata.md).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from dpbandits.audit.from_accountant import SOURCE, audit_from_accountant  # noqa: E402

PLANTED = ["SmallerOfTwo", "RawWhenLarge", "LeakBand", "LeakInside", "HalvedFrom7"]
LABELS = {"SmallerOfTwo": "smaller of two draws (noise law)",
          "RawWhenLarge": "noise dropped above 3/ε (noise law)",
          "LeakBand": "reward read in (0.6, 0.7) (leak)",
          "LeakInside": "reward read inside (0, 1) (leak)",
          "HalvedFrom7": "scale halved from round 7"}
"""How the table names the planted changes of tests/test_accountant_verifier.py."""
PAPER = {"dp-ucb-bound[paper]": ("dp-ucb-bound", "paper", {}, 1.0),
         "dp-ucb[paper]": ("dp-ucb", "paper", {}, 1.0),
         "hybrid-ucb[paper]": ("hybrid-ucb", "paper", {}, 1.0),
         "dp-ucb-int[paper] v=1.5": ("dp-ucb-int", "paper", {"v": 1.5}, 0.5),
         "rnm-ftnl[paper]": ("rnm-ftnl", "paper", {}, 1.0),
         "dpucb-mat[paper]": ("dpucb-mat", "paper", {}, 1.0)}


def case(label: str):
    if label in PAPER:
        name, variant, params, eps = PAPER[label]
        return dict(name=name, variant=variant, params=params, epsilon=eps)
    import test_accountant_verifier as planted

    return dict(name="anytime-lazy-ucb", policy_class=getattr(planted, label))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, nargs="+", default=[20_000, 100_000])
    parser.add_argument("--cases", nargs="+", default=PLANTED + list(PAPER))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print("| break | N per side | default pairs | accountant's pairs | both (--from-accountant) |")
    print("|---|---:|---|---|---|")
    for label in args.cases:
        for n in args.samples:
            cells = []
            for use in ("default", "accountant", "both"):
                start = time.perf_counter()
                result, _ = audit_from_accountant(**case(label), samples=n, seed=args.seed,
                                                  use=use)
                seconds = time.perf_counter() - start
                if result is None:
                    cells.append("not audited (a proof)")
                    continue
                source = ("accountant" if result.pair["description"].startswith(SOURCE)
                          else "default")
                cells.append(f"{result.epsilon_lower_bound:.3f} {result.verdict} "
                             f"({source} pair, {seconds:.0f} s)")
            print(f"| {LABELS.get(label, label)} | {n:,} | " + " | ".join(cells) + " |",
                  flush=True)


if __name__ == "__main__":
    main()
