"""The summary stage: :class:`Validation`, the answer of :func:`~dpbandits.validate.validate`,
with its three verdicts (behaviour, privacy, regret), its exit status, its printed summary and
its JSON.

**Behaviour.** ``differs`` names the first difference: the rejected comparison with the smallest
round (then the smallest p-value); ``conforms in outcome, differs in path`` when every
rejection is a path comparison (:attr:`~dpbandits.validate.correction.Comparison.kind`).
**Privacy.** The audit's verdict, or *could not test* when its test sample held no evidence
(:func:`dpbandits.audit.against.could_not_test`). **Regret.** The candidate's checks against
the bounds (:mod:`dpbandits.validate.regret`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .correction import Comparison
from .stages import Setup

__all__ = ["Validation", "PATH_ONLY", "COULD_NOT_TEST"]

PATH_ONLY = "conforms in outcome, differs in path"
"""The behaviour verdict when only path comparisons (the fixed table) are rejected."""

COULD_NOT_TEST = "could not test"
"""The behaviour verdict when no comparison is rejected but no round could have differed: the
reference's actions do not depend on the rewards at this horizon (exit status 3)."""


@dataclass(frozen=True, kw_only=True)
class Validation:
    """The answer of :func:`validate`: behaviour, privacy and regret, with everything behind them.

    Built once, from the stages' results (:meth:`of_stages`), and not changed after."""

    setup: Setup
    """The request as checked, the candidate's label and the problem's size and means
    (``result.setup.T``); the summary does not restate them."""
    comparisons: list[Comparison]
    audit: Any = None
    """The :class:`~dpbandits.audit.result.AuditResult`, or None (see ``privacy_note``)."""
    privacy_note: str = ""
    regret_checks: list[dict[str, Any]] = field(default_factory=list)
    """One dict per bound: ``bound`` (key), ``candidate`` and ``reference`` (BoundCheck)."""
    regret_note: str = ""
    curves: dict[str, Any] = field(default_factory=dict)
    """On the fresh sample: ``regret`` (name -> per-run pseudo-regret, shape (R, C), at
    ``regret_checkpoints``) and ``pulls`` (name -> mean pulls per arm, shape (C', K), at
    ``pull_checkpoints``), for ``candidate`` and ``reference``."""
    first_action_difference: dict[str, Any] = field(default_factory=dict)
    """On the fixed table (:func:`~dpbandits.validate.power.first_action_difference`): the first
    round where the actions differ, exact while both sides are deterministic."""
    untestable: dict[str, Any] | None = None
    """Why no round could differ at this horizon and from which horizon one could
    (:func:`~dpbandits.validate.loading.dependence`); None when some round could."""
    alternatives: list[dict[str, Any]] = field(default_factory=list)
    """A differing candidate against the reference under each documented alternative."""
    power_checks: list[dict[str, Any]] = field(default_factory=list)
    """A conforming candidate: the reference's planted variants, detected at this size or not."""

    @classmethod
    def of_stages(cls, setup: Setup, behaviour: Any, difference: Any, alternatives: Any,
                  planted: Any, privacy: Any, regret: Any) -> "Validation":
        """The summary of the stages' results (:mod:`~dpbandits.validate.stages`)."""
        return cls(setup=setup, comparisons=behaviour.comparisons,
                   first_action_difference=difference.first_action_difference,
                   untestable=difference.untestable, alternatives=alternatives.tried,
                   power_checks=planted.checks, audit=privacy.audit, privacy_note=privacy.note,
                   curves=regret.curves, regret_checks=regret.checks, regret_note=regret.note)

    @property
    def behaviour(self) -> str:
        """``conforms`` when Holm's procedure rejects no comparison and some round could have
        differed (``could not test`` when none could: :attr:`untestable`); ``conforms in outcome,
        differs in path`` when every rejection is a path comparison (the fixed table) and no
        outcome comparison (fresh tables: pull counts, regret, actions) is rejected at the
        detectable effects stated beside it; ``differs`` otherwise."""
        rejected = [c for c in self.comparisons if c.rejected]
        if not rejected:
            return COULD_NOT_TEST if self.untestable else "conforms"
        if all(c.kind == "path" for c in rejected) and any(c.kind == "outcome" for c in self.comparisons):
            return PATH_ONLY
        return "differs"

    @property
    def conforming_alternatives(self) -> list[str]:
        """The documented alternatives under which the candidate conforms."""
        return [a["change"] for a in self.alternatives if a["behaviour"] == "conforms"]

    @property
    def undetected(self) -> list[dict[str, Any]]:
        """The planted variants this size would not have told apart."""
        return [p for p in self.power_checks if not p["detected"]]

    @property
    def power_error_rate(self) -> str:
        """How often a 'told apart' of the planted variants can be wrong (empty without them)."""
        setup = self.setup
        count = len(self.power_checks)
        if not count:
            return ""
        return (f"each 'told apart' is one set of comparisons at family-wise level alpha = "
                f"{setup.alpha:g}: a planted variant with the reference's own law is reported "
                f"told apart with probability at most {setup.alpha:g} at each size tried, and "
                f"some of the {count} with probability at most {count} x {setup.alpha:g} = "
                f"{min(1.0, count * setup.alpha):.3g} at this size (Bonferroni; not corrected)")

    @property
    def rejected(self) -> list[Comparison]:
        """Every rejected comparison: outcomes first, then paths, each by round (then p-value)."""
        return sorted((c for c in self.comparisons if c.rejected),
                      key=lambda c: (c.kind != "outcome", c.t, c.p_value))

    @property
    def first_difference(self) -> Comparison | None:
        """The rejected comparison at the earliest round (then the smallest p-value)."""
        rejected = [c for c in self.comparisons if c.rejected]
        return min(rejected, key=lambda c: (c.t, c.p_value)) if rejected else None

    def departure(self, kind: str | None = None) -> int | None:
        """The first round where the actions differ when it is exact (both sides deterministic
        on the fixed table up to it, :attr:`first_action_difference`) and ``kind`` is None.
        Otherwise (and per kind) the estimated first round at which the candidate departs from the reference: the earliest
        tested round from which on *every* later tested round of the same kind (``path``,
        ``outcome``, or both when None) has a rejected comparison (Holm over all comparisons at
        family-wise level alpha). A single chance rejection followed by agreement does not move
        it; the departure lies between the tested round before it and it."""
        exact = self.first_action_difference
        if kind is None and exact.get("exact") and any(c.rejected for c in self.comparisons):
            return exact["round"]
        chosen = [c for c in self.comparisons if kind is None or c.kind == kind]
        rounds = sorted({c.t for c in chosen})
        hit = {c.t for c in chosen if c.rejected}
        start = None
        for t in reversed(rounds):
            if t not in hit:
                break
            start = t
        return start

    @property
    def privacy(self) -> str:
        """``consistent``, ``violation``, ``could not test``, ``not audited`` or ``not applicable``
        (ALGO makes no privacy claim)."""
        if self.audit is None:
            return "not applicable" if self.setup.epsilon is None else "not audited"
        from ..audit.against import could_not_test

        if self.audit.verdict != "violation" and could_not_test(self.audit) is not None:
            return "could not test"
        return self.audit.verdict

    @property
    def regret(self) -> str:
        """The candidate's checks by the rule of :mod:`dpbandits.bounds.check`: ``violated``
        when one is; else ``inconclusive at this size`` when one is (its band contains the bound
        somewhere: see its ``runs_needed``); else ``respected`` when one is; else ``vacuous at
        this size`` (every applicable bound is at least T x largest gap, so no run could violate
        it: larger T is needed, see each check's ``informative_from``); else ``not applicable``;
        ``no bound available`` without a check."""
        if not self.regret_checks:
            return "no bound available"
        verdicts = [entry["candidate"].verdict for entry in self.regret_checks]
        for verdict in ("violated", "inconclusive at this size", "respected",
                        "vacuous at this size"):
            if verdict in verdicts:
                return verdict
        return "not applicable"

    @property
    def ok(self) -> bool:
        """Conforms, no privacy violation and no regret bound violated."""
        return self.behaviour == "conforms" and self.privacy != "violation" and self.regret != "violated"

    @property
    def exit_status(self) -> int:
        """0 when :attr:`ok`, 1 otherwise, 3 when nothing was violated but the behaviour check
        or the privacy audit could not test (the command line's exit status)."""
        if self.behaviour == COULD_NOT_TEST and self.privacy != "violation" \
                and self.regret != "violated":
            return 3
        if not self.ok:
            return 1
        return 3 if self.privacy == "could not test" else 0

    def evidence(self) -> dict[str, Any]:
        """Per kind (``path``, ``outcome``): comparisons, rejections, the estimated departure,
        and the largest |effect| against the detectable effect of the same comparison."""
        out = {}
        for kind in ("path", "outcome"):
            chosen = [c for c in self.comparisons if c.kind == kind]
            if not chosen:
                continue
            largest = max(chosen, key=lambda c: abs(c.effect) / c.detectable
                          if c.detectable and math.isfinite(c.detectable) else 0.0)
            out[kind] = {"sample": chosen[0].sample, "comparisons": len(chosen),
                         "rejected": sum(c.rejected for c in chosen),
                         "departure": self.departure(kind),
                         "largest_effect": {"comparison": largest.describe(),
                                            "effect": largest.effect,
                                            "detectable": largest.detectable}}
        return out

    def summary(self, shown: int = 5) -> str:
        """A readable report: the three verdicts and the comparisons closest to rejection."""
        setup = self.setup
        variant = f" [{setup.variant}]" if setup.variant else ""
        eps = f" at epsilon = {setup.epsilon:g}" if setup.epsilon is not None else ""
        m = len(self.comparisons)
        lines = [f"{setup.candidate} against {setup.algorithm}{variant}{eps}",
                 f"  means = {[round(x, 4) for x in setup.means]}, T = {setup.T}, {setup.runs} "
                 f"runs per sample (fixed table and fresh tables), seed = {setup.seed}"]
        if setup.filled_note:
            lines.append(f"  {setup.filled_note}")
        if setup.super_arm_size:
            lines.append(f"  semi-bandit: every round a super arm, a basis of {setup.matroid} "
                         f"(k = {setup.super_arm_size} of L = {setup.K} base arms); the pulls of a "
                         f"base arm count the rounds whose super arm held it")
        lines += ["",
                 f"behaviour: {self.behaviour.upper()} ({m} comparisons, Holm at family-wise level "
                 f"{setup.alpha:g}; detectable effects at {100 * setup.power:g}% power, level alpha/m)"]
        for kind, facts in self.evidence().items():
            played = "super arm" if setup.super_arm_size else "arm"
            what = (f"path comparisons (the fixed table; the {played} played in given rounds)"
                    if kind == "path"
                    else "outcome comparisons (fresh tables: pull counts and regret from T/8 on)")
            departs = facts["departure"]
            lines.append(f"  {what}: {facts['rejected']} of {facts['comparisons']} rejected"
                         + (f"; departs from round {departs} on (every later tested round rejected)"
                            if departs else ""))
            if not facts["rejected"]:
                lines.append(f"    largest effect against what was detectable: "
                             f"{facts['largest_effect']['comparison']}")
        if self.behaviour == PATH_ONLY:
            lines.append("  the outcomes agree within the detectable effects above; only the "
                         "trajectories differ")
        lines += self._explanation()
        departs = self.departure()
        exact = self.first_action_difference
        if departs is not None and exact.get("exact") and departs == exact["round"]:
            lines.append(f"  departure: round {departs}, where the actions first differ on the "
                         f"fixed table (exact: every run of each side played the same actions "
                         f"until then; candidate {_action(exact['candidate'])}, reference "
                         f"{_action(exact['reference'])})")
        elif departs is not None:
            lines.append(f"  estimated departure: round {departs} (the earliest tested round "
                         f"from which every later tested round has a rejected comparison)")
        rejected = self.rejected
        if rejected:
            lines.append(f"  rejected ({len(rejected)}):")
            lines += [f"    {c.describe()}" for c in rejected]
        closest = [c for c in sorted(self.comparisons, key=lambda c: c.p_value) if not c.rejected][:shown]
        if closest:
            lines.append("  smallest p-values not rejected:")
        for c in closest:
            lines.append(f"    {c.describe()}")
        lines.append("")
        if self.audit is not None:
            from ..audit.against import could_not_test

            reason = could_not_test(self.audit)
            shown_audit = self.audit.summary() if self.privacy != "could not test" else reason
            lines.append(f"privacy: {self.privacy.upper()} ({shown_audit})")
            lines.append(f"  {self.privacy_note}")
            lines += [f"  {note}" for note in self.audit.notes]
        else:
            lines.append(f"privacy: {self.privacy.upper()}" + (f" ({self.privacy_note})" if self.privacy_note else ""))
        lines.append("")
        lines.append(f"regret: {self.regret.upper()}" + (f" ({self.regret_note})" if self.regret_note else ""))
        for entry in self.regret_checks:
            cand, ref = entry["candidate"], entry["reference"]
            lines.append(f"  {entry['bound']}: candidate {cand.verdict} (mean / bound at the last "
                         f"checkpoint {cand.final_ratio:.3g}); reference {ref.verdict} "
                         f"({ref.final_ratio:.3g}); {cand.informative_note}")
            if cand.inconclusive:
                lines.append(f"    candidate: {cand.inconclusive_note}")
        return "\n".join(lines)

    def _explanation(self) -> list[str]:
        """What the alternatives tried, the planted variants or the missing data dependence say."""
        lines = []
        if self.untestable and self.behaviour == COULD_NOT_TEST:
            start = self.untestable["from_horizon"]
            lines.append(f"  {self.untestable['reason']}: no comparison could reject a change "
                         f"that only acts on the rewards; "
                         + (f"they do from round {self.untestable['first_dependent_round']} at "
                            f"T = {start}: rerun with --horizon {start} or more"
                            if start else "no horizon searched makes them depend on the rewards"))
        if self.alternatives:
            fits = self.conforming_alternatives
            first = self.alternatives[0]
            count = len(self.alternatives)
            bound = (f"{count} of {first.get('possible', count)} combinations tried, smallest "
                     f"first, at most {first.get('limit', count)}")
            tried = ", ".join(f"{a['change']}: {a['behaviour']}" for a in self.alternatives)
            if fits:
                options = [a["option"] for a in self.alternatives if a["behaviour"] == "conforms"]
                size = min(a.get("size", 1) for a in self.alternatives
                           if a["behaviour"] == "conforms")
                what = ("documented alternative" if size == 1
                        else f"set of {size} documented alternatives")
                lines.append(f"  the candidate conforms to the reference with {' / '.join(fits)}, "
                             f"the smallest {what} that conforms ({bound}: {tried}); rerun with "
                             f"{' or '.join(options)}")
            else:
                lines.append(f"  no combination of the reference's documented alternatives "
                             f"removes the difference ({bound}: {tried})")
        if self.power_checks:
            caught = [_planted(p) for p in self.power_checks if p["detected"]]
            lines.append(f"  power: of the reference's planted variants run at this size, "
                         f"each changing the one part named, {len(caught)} of "
                         f"{len(self.power_checks)} were told apart"
                         + (f" ({', '.join(caught)})" if caught else ""))
            lines.append(f"    {self.power_error_rate}")
            for p in self.undetected:
                where = (f"told apart at T = {p['detected_at']}" if p["detected_at"]
                         else f"not told apart up to T = {p['tried_up_to']} either")
                lines.append(f"    NOT told apart at this size: {_planted(p)} ({where}); "
                             f"'conforms' does not exclude it")
        return lines

    def short_summary(self, lines: int) -> list[str]:
        """At most ``lines`` lines: the verdict's reason, the first rejected comparisons."""
        out = [line for line in self._explanation() if not line.startswith("    ")][:2]
        exact = self.first_action_difference
        if exact.get("exact"):
            out.append(f"  actions first differ at round {exact['round']} on the fixed table "
                       f"(candidate {_action(exact['candidate'])}, reference "
                       f"{_action(exact['reference'])})")
        rejected = sorted(self.rejected, key=lambda c: (c.t, c.p_value))
        room = max(lines - len(out) - 1, 1)
        if rejected:
            out.append(f"  first of {len(rejected)} rejected comparisons:")
            out += [f"    {c.describe()}" for c in rejected[:room - 1]]
        return out[:lines]

    def to_dict(self) -> dict[str, Any]:
        setup = self.setup
        first = self.first_difference
        regret = self.curves.get("regret", {})
        curves = {"checkpoints": np.asarray(self.curves.get("regret_checkpoints", [])).tolist(),
                  **{name: {"mean": values.mean(axis=0).tolist(),
                            "std": values.std(axis=0, ddof=1).tolist()}
                     for name, values in regret.items()}}
        return {"algorithm": setup.algorithm, "variant": setup.variant,
                "epsilon": setup.epsilon, "candidate": setup.candidate, "K": setup.K,
                "T": setup.T, "runs": setup.runs, "matroid": setup.matroid or None,
                "super_arm_size": setup.super_arm_size or None, "seed": setup.seed,
                "means": setup.means, "alpha": setup.alpha, "power": setup.power,
                "correction": f"Holm over {len(self.comparisons)} comparisons",
                "behaviour": self.behaviour,
                "first_difference": None if first is None else first.to_dict(),
                "departure": self.departure(),
                "departure_rule": "the first round where the actions differ on the fixed table, "
                                  "when both sides are deterministic until then (exact); "
                                  "otherwise the earliest tested round from which every later "
                                  "tested round has a rejected comparison (Holm, family-wise "
                                  "level alpha)",
                "first_action_difference": self.first_action_difference or None,
                "untestable": self.untestable,
                "filled": setup.filled_note or None,
                "alternatives": self.alternatives,
                "power_checks": self.power_checks,
                "power_error_rate": self.power_error_rate or None,
                "evidence": self.evidence(),
                "rejected": [c.to_dict() for c in self.rejected],
                "privacy": self.privacy, "privacy_note": self.privacy_note,
                "regret": self.regret, "regret_note": self.regret_note,
                "ok": self.ok,
                "comparisons": [c.to_dict() for c in self.comparisons],
                "audit": None if self.audit is None else self.audit.to_dict(),
                "regret_checks": [{"bound": e["bound"], "candidate": e["candidate"].to_dict(),
                                   "reference": e["reference"].to_dict()} for e in self.regret_checks],
                "regret_curves": curves}


def _planted(check: dict[str, Any]) -> str:
    """A planted variant with the part it changes: 'radius x 1/2 [bonus]'."""
    part = check.get("part")
    return f"{check['change']} [{part}]" if part else check["change"]


def _action(value: Any) -> str:
    """An arm, or a super arm as its set of base arms."""
    if isinstance(value, list):
        return str(value[0]) if len(value) == 1 else "{" + ", ".join(map(str, value)) + "}"
    return str(value)
