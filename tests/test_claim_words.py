"""The word ``holds`` is printed only beside the accountant's proof at a stated size.

A claim's status (``holds``, ``false``, ``unproven``) is the project's reading of the paper, a
proof or a counterexample on the algorithm's docs page; printed, it reads ``true for this variant
(its proof: docs/algorithms/NAME.md)``. ``holds`` belongs to the accountant's proof at a printed
K and T only. These tests read what ``list``, the report's algorithm and audit tables and
validate's privacy note print, and the JSON's machine fields.

Kinds: exact (every line is read and each check has a line that fails it).
"""

from __future__ import annotations

import json
import re

import pytest

from dpbandits.accountant.brackets import Bracket
from dpbandits.accountant.composition import PER_ARM, PROOF
from dpbandits.cli import main
from dpbandits.reference import algorithms, get, make
from dpbandits.reference.privacy import STATUS_WORD, Guarantee, PrivacyClaim, status_words
from dpbandits.reference.registry import ALGORITHMS, docs_page

AT_A_SIZE = re.compile(r"\bholds at K = \d+, T = \d+\b|\(proof at this size: K = \d+, T = \d+")
"""What a line that says ``holds`` must also state: the accountant's proof at its K and T."""


def unproven_holds(text: str) -> list[str]:
    """The lines of ``text`` that print ``holds`` without a proof at a stated size."""
    return [line for line in text.splitlines()
            if re.search(r"\bholds\b", line) and not AT_A_SIZE.search(line)]


def _private_variants() -> list[tuple[str, str]]:
    return [(name, variant.name) for name in ALGORITHMS if get(name).private
            for variant in get(name).variants]


@pytest.mark.exact
def test_the_check_finds_a_status_printed_as_holds():
    assert unproven_holds("dp-ucb: 1-DP [row] (holds)\nok") == ["dp-ucb: 1-DP [row] (holds)"]
    assert unproven_holds("claim holds by the accountant (per-arm bound, not a proof: K = 2)")
    assert not unproven_holds("traced: eps <= 1; claim holds at K = 2, T = 6 by the "
                              "accountant's proof (proof at this size: K = 2, T = 6, ...)")
    assert not unproven_holds("[0.9, -, 1] claim holds by the accountant (proof at this size: "
                              "K = 2, T = 8, every table with entries in [0, 1])")


@pytest.mark.exact
def test_status_words_name_the_page_and_never_say_holds():
    page = "docs/algorithms/dp-ucb.md"
    assert status_words("holds", page) == f"true for this variant (its proof: {page})"
    assert status_words("false", page) == f"false for this variant (its counterexample: {page})"
    assert status_words("unproven", page) == (
        f"unproven for this variant (no proof covers it: {page})")
    assert status_words("non-private") == "non-private"
    assert STATUS_WORD["holds"] == "true"
    with pytest.raises(ValueError, match="unknown claim status 'proof'"):
        status_words("proof")
    claim = PrivacyClaim(Guarantee(1.0), Guarantee(2.0), "false", "a source")
    assert claim.summary(page) == (f"1-DP [row]: false for this variant (its counterexample: "
                                   f"{page}); true: 2-DP [row]")
    assert claim.summary() == ("1-DP [row]: false for this variant (its counterexample: the "
                               "algorithm's docs page); true: 2-DP [row]")


@pytest.mark.exact
@pytest.mark.parametrize("name,variant", _private_variants(), ids=lambda v: str(v))
def test_every_claim_summary_says_its_status_in_words(name, variant):
    claim = make(name, 2, epsilon=1.0, rng=0, variant=variant, T=1000).claim
    text = claim.summary(docs_page(name))
    assert not unproven_holds(text), text
    assert f"{claim.claimed}: {status_words(claim.status, docs_page(name))}" in text


@pytest.mark.exact
def test_list_prints_holds_only_beside_a_proof_at_a_size(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert not unproven_holds(out), unproven_holds(out)[:3]
    assert "true for this variant (its proof: docs/algorithms/dp-ucb.md)" in out
    assert AT_A_SIZE.search(out)  # the accountant's proofs are still said with their size


@pytest.mark.exact
def test_list_json_keeps_the_status_as_a_machine_field_and_words_as_text():
    infos = {info.name: info for info in algorithms(1.0)}
    for name, variant in _private_variants():
        claim = make(name, 2, epsilon=1.0, rng=0, variant=variant, T=1000).claim
        assert infos[name].claim_status[variant] == claim.status
        assert infos[name].claims[variant] == claim.summary(docs_page(name))
    dumped = json.dumps([info.__dict__ for info in infos.values()])
    assert '"holds"' in dumped and "(holds)" not in dumped


@pytest.mark.exact
def test_the_reports_algorithm_table_says_no_holds(tmp_path):
    from dpbandits.report.parts import BUILDERS

    part = BUILDERS["algorithms"](tmp_path, {}, 0, None, lambda _: None)
    assert not unproven_holds(part.markdown), unproven_holds(part.markdown)[:3]
    assert "corrected: 1-DP [row]: true for this variant (its proof: docs/algorithms/dp-ucb.md)" \
        in part.markdown


@pytest.mark.exact
def test_the_audit_table_says_the_known_status_in_words():
    from dpbandits.audit import claims_table
    from dpbandits.audit.result import AuditResult

    rows = json.loads(open("docs/data/audit-claims.json").read())
    table = claims_table([AuditResult.from_dict(row) for row in rows])
    statuses = {line.split(" | ")[2] for line in table.splitlines()[2:]}
    assert statuses <= {"true", "false", "unproven", "non-private", "-"}, (
        f"{statuses}: if a row is older than the claims' words, docs/data/audit-claims.json is "
        f"stale: regenerate it with `dpbandits audit --all --out docs/data`")
    assert "true" in statuses and "false" in statuses
    assert not unproven_holds(table), unproven_holds(table)[:3]


@pytest.mark.exact
@pytest.mark.parametrize("name,variant", _private_variants(), ids=lambda v: str(v))
def test_validates_privacy_note_says_the_status_in_words(name, variant):
    from dpbandits.audit.mechanism import RegistryMechanism
    from dpbandits.validate.core import _privacy
    from dpbandits.validate.loading import check_request

    request = check_request(name, epsilon=1.0, variant=variant, runs=20, horizon=100)
    audited = object()  # _privacy hands the audit through; its note reads the claim alone
    note = _privacy(request, audited).note
    claim = RegistryMechanism(name, request.K, 1.0, variant, request.params,
                              T=request.audit_horizon or request.T).claim  # the audited claim
    assert note == f"{name}'s claim {claim.summary(docs_page(name))}"
    assert not unproven_holds(note), note


@pytest.mark.exact
def test_a_bracket_says_holds_only_on_a_proof_and_names_its_size():
    proof = Bracket(Guarantee(1.0), 0.5, None, 1.0, status=PROOF,
                    scope="K = 2, T = 8, every table with entries in [0, 1]")
    per_arm = Bracket(Guarantee(1.0), 0.5, None, 1.0, status=PER_ARM,
                      scope="K = 2, T = 96, every table with entries in [0, 1]")
    assert proof.verdict == "holds" and not unproven_holds(proof.text())
    assert per_arm.verdict == "consistent" and "holds" not in per_arm.text()
