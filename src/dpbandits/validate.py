"""``dpbandits validate``: does a third-party implementation behave like the paper's algorithm,
is it as private as claimed, and does its regret respect the theorem?

The candidate is any audit mechanism (:mod:`dpbandits.audit.adapters`: a single-run act/observe
policy or a function of the table; :mod:`dpbandits.audit.external`: a program in any language
over the line protocol). The reference is the registered algorithm ALGO, run through the same
``sample(table, n, seed)`` interface.

**Behaviour.** Both are run R times on tables drawn from the setting: once on one fixed table
(the audit shape) and once on ``fresh`` tables (R / 4 runs on each of 4 further tables, the same
tables for both). On each sample, comparisons of the two output distributions:

- the pull count of every arm at checkpoints T/4, T/2 and T: Mann-Whitney U (two-sided,
  asymptotic with tie correction), effect size the rank-biserial correlation;
- the action at chosen rounds (1, 2, K + 1, T/2 and T): chi-square test of homogeneity of the
  2 x K table of counts (arms no run chose dropped; a round both always play alike is skipped),
  effect size Cramér's V;
- the pseudo-regret at T/4, T/2 and T: Mann-Whitney U.

Correction: Holm's step-down over all the comparisons at family-wise level ``alpha``. So if the
candidate's outputs have the reference's distribution, the verdict is ``conforms`` with
probability at least 1 - alpha (asymptotically in R). Each comparison reports the smallest
difference the sample could have detected with 80% power at the Bonferroni level alpha / m (a
mean difference for counts and regret; Cramér's V for actions). ``differs`` names the earliest
round at which a comparison rejects.

**Privacy.** The candidate is audited (:func:`dpbandits.audit.audit`) against the claim of ALGO
at epsilon, on the specs' worst-case pairs for ALGO and the generic candidates.

**Regret.** The candidate's pseudo-regret on the fresh tables (computed from its actions and the
setting's means) is held against every explicit, non-flawed bound about ALGO
(:func:`dpbandits.bounds.check_regret`).
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from scipy import optimize, stats

from .errors import DPBanditsError, check_epsilon, check_positive_int

HELP = "validate a third-party implementation against a reference algorithm"

__all__ = ["HELP", "add_arguments", "run", "validate", "Comparison", "Validation", "holm"]

FRESH_TABLES = 4
POWER = 0.8


@dataclass(frozen=True)
class Comparison:
    """One two-sample comparison of candidate and reference outputs."""

    sample: str
    """``fixed`` (one table) or ``fresh`` (several tables)."""
    what: str
    """``pulls of arm a``, ``action``, ``regret``."""
    t: int
    test: str
    statistic: float
    p_value: float
    effect: float
    """Rank-biserial correlation (Mann-Whitney) or Cramér's V (chi-square)."""
    candidate: float
    """Candidate's mean (counts, regret) or modal action."""
    reference: float
    detectable: float
    """Smallest difference detectable with 80% power at level alpha / m."""
    rejected: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {k: (None if isinstance(v, float) and not math.isfinite(v) else v)
                for k, v in self.__dict__.items()}


@dataclass
class Validation:
    """The three answers: behaviour, privacy, regret."""

    algorithm: str
    variant: str | None
    epsilon: float
    label: str
    runs: int
    horizon: int
    alpha: float
    comparisons: list[Comparison]
    audit: Any = None
    regret_checks: list[Any] = field(default_factory=list)
    curves: dict[str, Any] = field(default_factory=dict)

    @property
    def behaviour(self) -> str:
        return "differs" if any(c.rejected for c in self.comparisons) else "conforms"

    @property
    def first_difference(self) -> Comparison | None:
        rejected = [c for c in self.comparisons if c.rejected]
        return min(rejected, key=lambda c: (c.t, c.p_value)) if rejected else None

    @property
    def privacy(self) -> str:
        return "not audited" if self.audit is None else self.audit.verdict

    @property
    def regret(self) -> str:
        if not self.regret_checks:
            return "no explicit bound"
        return "violated" if any(c.verdict == "violated" for c in self.regret_checks) else "respected"

    @property
    def ok(self) -> bool:
        return self.behaviour == "conforms" and self.privacy != "violation" and self.regret != "violated"

    def summary(self) -> str:
        lines = [f"{self.label} against {self.algorithm}" + (f" [{self.variant}]" if self.variant else "")
                 + f" at epsilon = {self.epsilon:g}; {self.runs} runs of T = {self.horizon} per sample",
                 f"behaviour: {self.behaviour.upper()} ({len(self.comparisons)} comparisons, Holm at "
                 f"family-wise level {self.alpha:g})"]
        first = self.first_difference
        if first is not None:
            lines.append(f"  first difference: {first.what} at t = {first.t} on the {first.sample} "
                         f"sample ({first.test}, p = {first.p_value:.2g}; candidate {first.candidate:.4g} "
                         f"vs reference {first.reference:.4g})")
        lines.append(f"privacy: {self.privacy.upper()}" + (f" ({self.audit.summary()})" if self.audit else ""))
        lines.append(f"regret: {self.regret.upper()}")
        for check in self.regret_checks:
            lines.append(f"  {check.bound}: {check.verdict} (mean regret / bound at T = {check.final_ratio:.3g})")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {"algorithm": self.algorithm, "variant": self.variant, "epsilon": self.epsilon,
                "candidate": self.label, "runs": self.runs, "horizon": self.horizon,
                "alpha": self.alpha, "behaviour": self.behaviour, "privacy": self.privacy,
                "regret": self.regret, "comparisons": [c.to_dict() for c in self.comparisons],
                "audit": None if self.audit is None else self.audit.to_dict(),
                "regret_checks": [c.to_dict() for c in self.regret_checks]}


# -- statistics ------------------------------------------------------------------------------------

def holm(p_values: list[float], alpha: float) -> list[bool]:
    """Holm's step-down procedure: which hypotheses are rejected at family-wise level alpha."""
    order = np.argsort(p_values)
    m = len(p_values)
    rejected = [False] * m
    for rank, index in enumerate(order):
        if p_values[index] > alpha / (m - rank):
            break
        rejected[index] = True
    return rejected


def _mann_whitney(a: np.ndarray, b: np.ndarray) -> tuple[float, float, float]:
    if np.all(a == a[0]) and np.all(b == a[0]):
        return 0.0, 1.0, 0.0
    result = stats.mannwhitneyu(a, b, alternative="two-sided", method="asymptotic")
    effect = 2 * result.statistic / (a.size * b.size) - 1
    return float(result.statistic), float(result.pvalue), float(effect)


def _mean_detectable(a: np.ndarray, b: np.ndarray, level: float) -> float:
    spread = math.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)
    return (stats.norm.ppf(1 - level / 2) + stats.norm.ppf(POWER)) * spread


def _chi_square(a: np.ndarray, b: np.ndarray, K: int) -> tuple[float, float, float, int] | None:
    counts = np.stack([np.bincount(a, minlength=K), np.bincount(b, minlength=K)])
    counts = counts[:, counts.sum(axis=0) > 0]
    if counts.shape[1] < 2:
        return None
    chi2, p, dof, _ = stats.chi2_contingency(counts, correction=False)
    n = counts.sum()
    return float(chi2), float(p), float(math.sqrt(chi2 / n)), int(dof)


def _v_detectable(n: int, dof: int, level: float) -> float:
    """Cramér's V detectable with 80% power: the noncentrality lambda with
    P(ncx2(dof, lambda) > critical) = 0.8, and V = sqrt(lambda / n)."""
    critical = stats.chi2.ppf(1 - level, dof)
    lam = optimize.brentq(lambda x: stats.ncx2.sf(critical, dof, x) - POWER, 1e-9, 1e6)
    return math.sqrt(lam / n)


def _compare(sample: str, cand: np.ndarray, ref: np.ndarray, gaps: np.ndarray, K: int) -> list[dict]:
    """Raw comparisons on one sample; the detectable differences need m and are filled later."""
    T = cand.shape[1]
    checkpoints = sorted({max(1, T // 4), max(1, T // 2), T})
    rounds = sorted({1, min(2, T), min(K + 1, T), max(1, T // 2), T})
    raw = []
    for t in checkpoints:
        for a in range(K):
            x, y = (cand[:, :t] == a).sum(axis=1), (ref[:, :t] == a).sum(axis=1)
            statistic, p, effect = _mann_whitney(x, y)
            raw.append(dict(sample=sample, what=f"pulls of arm {a}", t=t, test="Mann-Whitney U",
                            statistic=statistic, p_value=p, effect=effect, candidate=float(x.mean()),
                            reference=float(y.mean()), data=(x, y)))
    for t in rounds:
        outcome = _chi_square(cand[:, t - 1], ref[:, t - 1], K)
        if outcome is None:
            continue
        chi2, p, v, dof = outcome
        raw.append(dict(sample=sample, what="action", t=t, test=f"chi-square ({dof} df)",
                        statistic=chi2, p_value=p, effect=v,
                        candidate=float(np.bincount(cand[:, t - 1], minlength=K).argmax()),
                        reference=float(np.bincount(ref[:, t - 1], minlength=K).argmax()),
                        data=("chi", cand.shape[0] + ref.shape[0], dof)))
    for t in checkpoints:
        x, y = gaps[cand[:, :t]].sum(axis=1), gaps[ref[:, :t]].sum(axis=1)
        statistic, p, effect = _mann_whitney(x, y)
        raw.append(dict(sample=sample, what="regret", t=t, test="Mann-Whitney U", statistic=statistic,
                        p_value=p, effect=effect, candidate=float(x.mean()), reference=float(y.mean()),
                        data=(x, y)))
    return raw


# -- the validation -------------------------------------------------------------------------------

def validate(candidate, against: str, *, epsilon: float, variant: str | None = None,
             params: dict[str, Any] | None = None, setting: str | None = None, means=None,
             horizon: int = 2000, runs: int = 200, seed: int = 0, alpha: float = 0.05,
             audit_samples: int = 10_000, progress=None) -> Validation:
    """Validate ``candidate`` (an audit mechanism) against registered algorithm ``against``."""
    from .audit import audit
    from .audit.mechanism import RegistryMechanism
    from .audit.pairs import candidate_pairs, known_pairs
    from .bounds import RegretCurve, bounds_for, check_regret
    from .reference import Bernoulli, get, get_setting
    from .reference.registry import canonical

    say = progress or (lambda message: None)
    against = canonical(against)
    cls = get(against)
    if cls.feedback == "semi":
        raise DPBanditsError(f"{against} is a matroid algorithm; validate covers bandit and "
                             "full-information algorithms")
    epsilon = check_epsilon(epsilon)
    T = check_positive_int(horizon, "horizon")
    runs = check_positive_int(runs, "runs", minimum=8)
    if not 0 < alpha < 1:
        raise DPBanditsError(f"alpha must be in (0, 1), got {alpha}")
    if means is not None:
        source = Bernoulli(np.asarray(means, dtype=float))
    else:
        source = get_setting(setting or "hu2021-setting2").environment()
    K = source.K
    if candidate.K != K:
        raise DPBanditsError(f"the candidate has K = {candidate.K} arms but the setting has {K}")
    reference = RegistryMechanism(against, K, epsilon if cls.private else None, variant,
                                  dict(params or {}), T=T)
    rng = np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0])
    tables = [source.table(T, rng) for _ in range(1 + FRESH_TABLES)]
    gaps = source.gaps
    per_table = max(2, runs // FRESH_TABLES)
    samples: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    say(f"behaviour: {runs} runs of each on a fixed table")
    samples["fixed"] = (candidate.sample(tables[0], runs, seed + 1),
                        reference.sample(tables[0], runs, seed + 2))
    say(f"behaviour: {per_table} runs of each on {FRESH_TABLES} fresh tables")
    fresh_c, fresh_r = [], []
    for i, table in enumerate(tables[1:]):
        fresh_c.append(candidate.sample(table, per_table, seed + 10 + i))
        fresh_r.append(reference.sample(table, per_table, seed + 20 + i))
    samples["fresh"] = (np.concatenate(fresh_c), np.concatenate(fresh_r))
    for name, (c, r) in samples.items():
        if c.ndim != 2 or c.shape[1] != T:
            raise DPBanditsError(f"{candidate.label}: expected actions of shape (n, {T}), got {c.shape}")
    raw = [row for name, (c, r) in samples.items() for row in _compare(name, c, r, gaps, K)]
    level = alpha / len(raw)
    rejected = holm([row["p_value"] for row in raw], alpha)
    comparisons = []
    for row, rej in zip(raw, rejected):
        data = row.pop("data")
        if isinstance(data[0], str):
            detectable = _v_detectable(data[1], data[2], level)
        else:
            detectable = _mean_detectable(data[0].astype(float), data[1].astype(float), level)
        comparisons.append(Comparison(**row, detectable=detectable, rejected=rej))
    result = Validation(against, reference.variant, epsilon, candidate.label, runs, T, alpha, comparisons)
    checkpoints = np.unique(np.geomspace(1, T, 40).round().astype(int))
    for name, actions in (("candidate", samples["fresh"][0]), ("reference", samples["fresh"][1])):
        regret = np.cumsum(gaps[actions], axis=1)[:, checkpoints - 1]
        result.curves[name] = RegretCurve.from_runs(checkpoints, regret)
    result.curves["pulls"] = (np.stack([np.bincount(row, minlength=K) for row in samples["fresh"][0]]),
                              np.stack([np.bincount(row, minlength=K) for row in samples["fresh"][1]]))
    if audit_samples and cls.private:
        say(f"privacy: auditing against {against}'s claim ({audit_samples} test runs per side)")
        candidate.claimed = reference.claimed
        audit_T = min(T, 16)
        pairs = known_pairs(against, K, audit_T) + candidate_pairs(
            K, audit_T, boundaries=reference.epoch_boundaries(audit_T))
        result.audit = audit(candidate, pairs, samples=audit_samples, alpha=alpha, seed=seed, T=audit_T)
    values = {"epsilon": epsilon, "K": float(K), "Delta_min": float(gaps[gaps > 0].min())}
    for bound in bounds_for(against, reference.variant, explicit=True):
        if bound.kind != "upper" or bound.status == "flawed" or bound.asymptotic or bound.instance:
            continue
        if any(s not in values and s not in ("T", "t", "gaps") for s in bound.symbols):
            continue
        args = {k: v for k, v in values.items() if k in bound.symbols}
        if bound.per_arm is not None:
            args["gaps"] = gaps
        result.regret_checks.append(check_regret(result.curves["candidate"], bound, alpha=alpha,
                                                 anytime=not cls.needs_horizon, **args))
    return result


def plot(result: Validation, path: Path) -> None:
    """Pull counts at T (mean and 95% interval) and regret curves, candidate vs reference."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    cand, ref = result.curves["pulls"]
    K = cand.shape[1]
    x = np.arange(K)
    for offset, pulls, label in ((-0.2, cand, "candidate"), (0.2, ref, "reference")):
        mean = pulls.mean(axis=0)
        half = 1.96 * pulls.std(axis=0, ddof=1) / math.sqrt(pulls.shape[0])
        left.bar(x + offset, mean, width=0.4, yerr=half, capsize=3, label=label)
    left.set_xticks(x)
    left.set_xlabel("arm")
    left.set_ylabel(f"pulls by T = {result.horizon}")
    left.legend()
    for name in ("candidate", "reference"):
        curve = result.curves[name]
        low, high = curve.band(0.95)
        right.plot(curve.checkpoints, curve.mean, label=name)
        right.fill_between(curve.checkpoints, low, high, alpha=0.2)
    right.set_xscale("log")
    right.set_xlabel("round")
    right.set_ylabel("pseudo-regret (fresh tables)")
    right.legend()
    figure.suptitle(f"{result.label} vs {result.algorithm}: behaviour {result.behaviour}", fontsize=10)
    figure.tight_layout()
    from .cli import _atomic_write

    _atomic_write(path, lambda handle: figure.savefig(handle, format="png", dpi=100), "wb")
    plt.close(figure)


# -- command line ---------------------------------------------------------------------------------

def add_arguments(parser: argparse.ArgumentParser) -> None:
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--command", dest="external", metavar="'PROGRAM ARGS'",
                       help="an external program speaking the line protocol")
    which.add_argument("--python", metavar="MODULE:OBJECT",
                       help="a Python factory OBJECT(rng) -> act/observe policy (or, with "
                            "--callable, a function OBJECT(table, rng) -> actions)")
    parser.add_argument("--callable", action="store_true", help="--python names a function of the table")
    parser.add_argument("--against", required=True, metavar="ALGO", help="the registered algorithm")
    parser.add_argument("--variant", default=None, help="the reference's variant")
    parser.add_argument("--epsilon", type=float, required=True, help="privacy parameter")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--setting", default=None, help="a named setting (default hu2021-setting2)")
    where.add_argument("--means", type=float, nargs="+", help="Bernoulli arm means")
    parser.add_argument("--horizon", type=int, default=2000, help="rounds T (default 2000)")
    parser.add_argument("--runs", type=int, default=200, help="runs per sample (default 200)")
    parser.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    parser.add_argument("--alpha", type=float, default=0.05, help="family-wise level (default 0.05)")
    parser.add_argument("--audit-samples", type=int, default=10_000,
                        help="test runs per side of the privacy audit (0 skips it)")
    parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                        help="a parameter of the reference algorithm (repeatable)")
    parser.add_argument("--protocol", choices=("table", "interactive"), default="table",
                        help="line protocol of the external program (default table)")
    parser.add_argument("--feedback", choices=("bandit", "full"), default=None,
                        help="what the candidate observes (default: the reference's feedback)")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds per expected line")
    parser.add_argument("--workers", type=int, default=1, help="parallel copies of the candidate")
    parser.add_argument("--out", default="dpbandits-out", help="folder for the JSON and PNG")
    parser.add_argument("--json", action="store_true", help="print JSON instead of the summary")
    parser.add_argument("--no-progress", action="store_true", help="hide progress messages")


def _python_object(spec_: str):
    module_name, sep, attribute = spec_.partition(":")
    if not sep or not module_name or not attribute:
        raise DPBanditsError(f"--python must look like MODULE:OBJECT, got {spec_!r}")
    sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except Exception as error:  # the user's module may fail in any way
        raise DPBanditsError(f"cannot import {module_name!r}: {type(error).__name__}: {error}") from None
    finally:
        sys.path.pop(0)
    try:
        return getattr(module, attribute)
    except AttributeError:
        raise DPBanditsError(f"module {module_name!r} has no {attribute!r}") from None


def run(args: argparse.Namespace) -> int:
    from .audit.adapters import CallableMechanism, PolicyMechanism
    from .audit.external import CommandMechanism
    from .cli import _atomic_write, _params
    from .reference import get, get_setting
    from .reference.registry import canonical

    against = canonical(args.against)
    cls = get(against)
    K = len(args.means) if args.means else len(get_setting(args.setting or "hu2021-setting2").means)
    feedback = args.feedback or ("full" if cls.feedback == "full" else "bandit")
    claim = args.epsilon if cls.private else None
    if args.external:
        candidate = CommandMechanism(args.external, K, claim, protocol=args.protocol, feedback=feedback,
                                     workers=args.workers, timeout=args.timeout)
    else:
        obj = _python_object(args.python)
        kind = CallableMechanism if args.callable else PolicyMechanism
        candidate = kind(obj, K, claim, feedback, workers=args.workers, label=args.python)
    say = (lambda m: None) if args.no_progress else (lambda m: print(f"  {m}", file=sys.stderr, flush=True))
    result = validate(candidate, against, epsilon=args.epsilon, variant=args.variant,
                      params=_params(args.param), setting=args.setting, means=args.means,
                      horizon=args.horizon, runs=args.runs, seed=args.seed, alpha=args.alpha,
                      audit_samples=args.audit_samples, progress=say)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stem = f"validate-{against}"
    _atomic_write(out / f"{stem}.json", lambda h: json.dump(result.to_dict(), h, indent=1), "w")
    plot(result, out / f"{stem}.png")
    print(json.dumps(result.to_dict(), indent=1) if args.json else result.summary())
    if not args.json:
        print(f"wrote {out / stem}.json and .png", file=sys.stderr)
    return 0 if result.ok else 1
