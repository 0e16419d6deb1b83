"""Privacy claims and variants as objects that code reads.

Every algorithm answers ``policy.claim`` with a :class:`PrivacyClaim`: what its paper claims for
the parameters it was built with (``claimed``), the best guarantee we can actually prove for the
variant that runs (``proven``), and a ``status`` that says how the two relate. The audit, the
command line and the docs read these objects; nothing restates them in prose elsewhere.

Status values:

``holds``        the paper's claim is true for this variant (``proven`` implies ``claimed``);
``false``        the claim is false for this variant: a counterexample is known (see ``note``);
``unproven``     no counterexample is known, but the paper's proof does not cover this variant;
``non-private``  the algorithm makes no privacy claim.

These values are machine fields (``claim.status``, an audit result's ``claim_status``), read by
programs. What is printed for a person says the status in words (:func:`status_words`,
:meth:`PrivacyClaim.summary`): ``true for this variant (its proof: PAGE)``, ``false for this
variant (its counterexample: PAGE)``, ``unproven for this variant (no proof covers it: PAGE)``.
``holds`` is never printed for a status: the status is the project's reading of the paper, a
proof or a counterexample on the algorithm's docs page, for every size; the word ``holds`` is
kept for the accountant's proof at a printed K and T (``dpbandits.accountant``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from .neighbours import ROW, NeighbourRelation

__all__ = ["Guarantee", "PrivacyClaim", "Variant", "Status", "STATUS_WORD", "status_words"]

Status = Literal["holds", "false", "unproven", "non-private"]

STATUS_WORD: dict[str, str] = {"holds": "true", "false": "false", "unproven": "unproven",
                               "non-private": "non-private"}
"""A status in one word, for a table's column (the claim is ``true``, ``false`` or ``unproven``
for the variant)."""

ANY_PAGE = "the algorithm's docs page"
"""Where the proof or counterexample is, when the algorithm's page is not named."""


def status_words(status: str, page: str | None = None) -> str:
    """The status of a claim in words that cannot be read as the accountant's verdict at one
    size: ``true for this variant (its proof: PAGE)``, ``false for this variant (its
    counterexample: PAGE)``, ``unproven for this variant (no proof covers it: PAGE)`` or
    ``non-private``. ``page`` is the algorithm's docs page (default: "the algorithm's docs
    page")."""
    page = page or ANY_PAGE
    words = {"holds": f"true for this variant (its proof: {page})",
             "false": f"false for this variant (its counterexample: {page})",
             "unproven": f"unproven for this variant (no proof covers it: {page})",
             "non-private": "non-private"}
    if status not in words:
        raise ValueError(f"unknown claim status {status!r}: one of {', '.join(words)}")
    return words[status]


@dataclass(frozen=True)
class Guarantee:
    """(epsilon, delta)-differential privacy of the whole action sequence under ``relation``."""

    epsilon: float
    delta: float = 0.0
    relation: NeighbourRelation = ROW

    def implies(self, other: "Guarantee") -> bool:
        """True when this guarantee is at least as strong as ``other``."""
        return (self.epsilon <= other.epsilon and self.delta <= other.delta      # exact
                and self.relation.implies(other.relation))

    def __str__(self) -> str:
        eps = _fmt(self.epsilon)
        if self.delta:
            return f"({eps}, {_fmt(self.delta)})-DP [{self.relation}]"
        return f"{eps}-DP [{self.relation}]"


@dataclass(frozen=True)
class PrivacyClaim:
    """What a paper claims for an algorithm, what is actually true, and where it is stated."""

    claimed: Guarantee | None
    proven: Guarantee | None
    status: Status
    source: str
    note: str = ""

    def __post_init__(self) -> None:
        if self.status == "holds" and not (self.claimed and self.proven
                                           and self.proven.implies(self.claimed)):
            raise ValueError("a claim with status 'holds' needs a proven guarantee implying it")
        if self.status == "non-private" and self.claimed is not None:
            raise ValueError("a non-private algorithm has no claimed guarantee")

    @property
    def is_private(self) -> bool:
        return self.claimed is not None

    def status_words(self, page: str | None = None) -> str:
        """This claim's status in words (:func:`status_words`); ``page`` is the algorithm's
        docs page, where its proof or counterexample is."""
        return status_words(self.status, page)

    def summary(self, page: str | None = None) -> str:
        """One line: the claim, its status in words and the true guarantee where they differ,
        e.g. ``1-DP [row]: false for this variant (its counterexample: PAGE); true: 2-DP [row]``.
        ``page`` is the algorithm's docs page (``docs/algorithms/NAME.md``)."""
        if self.claimed is None:
            return "non-private"
        text = f"{self.claimed}: {self.status_words(page)}"
        if self.status != "holds":
            text += f"; true: {self.proven}" if self.proven else "; true: no guarantee proven"
        return text


@dataclass(frozen=True)
class Variant:
    """One named variant of an algorithm (``paper`` as printed, ``corrected`` where it is not)."""

    name: str
    description: str


def _fmt(value: float) -> str:
    if value == 0 or (1e-3 <= abs(value) < 1e4):
        return f"{value:.4g}"
    if math.isinf(value):
        return "inf"
    return f"{value:.3e}"
