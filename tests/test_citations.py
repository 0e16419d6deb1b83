"""Citations point only at what a reader can open: the papers (section, equation, algorithm line,
theorem, page) and this repository's docs (errata entries by anchor, derivations on the pages).

Kinds: exact (a scan of every source, test, docs page, example and benchmark for tags of
documents that are not shipped: specification numbers and sections, flag and erratum-index tags,
test-plan item numbers; and of every ``docs/errata.md#anchor`` for an anchor that exists).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCANNED = [ROOT / "src", ROOT / "tests", ROOT / "docs", ROOT / "examples", ROOT / "benchmarks",
           ROOT / "README.md", ROOT / "CONTRIBUTING.md"]
SUFFIXES = {".py", ".md", ".json", ".sh", ".awk", ".txt", ".toml", ".yml", ".c", ".rs", ".js"}

UNSHIPPED = re.compile("|".join([
    r"\b[Ss]pecs?\s+0\d\d\b",                      # "spec" and a three-digit number
    r"\b[Ss]pecs?\s+(?:s\.|§|sections?\s)?\d",     # "spec 4.4", "spec s.6", "spec section 3"
    r"\bFLAG-\d",                                  # flag-register tags
    r"\bthe\s+specs?\b|\bspec's\b|\bspecs'",       # "the spec's table", "the specs' errata"
    r"\bT-[AEP]\d",                                # test-plan items
    r"\bs\.7\s+[A-Z]\d",                           # "s.7 E1"
    r"\((?:A\d{1,2}|E\d|G1|I1|N1|L1|R[1-4]|C[12]|LB[1-3])\)",   # "(A11)", "(G1)"
]))

# Files another change is rewriting; each must be removed from here once it is clean, and the
# test below fails if a listed file no longer needs its exemption.
PENDING: set[str] = set()


def _files() -> list[Path]:
    found = []
    for base in SCANNED:
        paths = [base] if base.is_file() else sorted(p for p in base.rglob("*") if p.is_file())
        found += [p for p in paths if p.suffix in SUFFIXES and "egg-info" not in str(p)
                  and p != Path(__file__).resolve()]
    return found


def _hits(path: Path) -> list[str]:
    text = path.read_text(errors="replace")
    return [f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)!r}"
            for m in UNSHIPPED.finditer(text)]


@pytest.mark.exact
def test_no_citation_of_unshipped_documents():
    hits = [h for p in _files() if str(p.relative_to(ROOT)) not in PENDING for h in _hits(p)]
    assert not hits, "cite the paper or docs/errata.md#anchor instead:\n" + "\n".join(hits)


@pytest.mark.exact
def test_pending_exemptions_are_still_needed():
    clean = [name for name in sorted(PENDING) if (ROOT / name).exists() and not _hits(ROOT / name)]
    assert not clean, f"remove from PENDING (now clean): {clean}"


@pytest.mark.exact
def test_the_pattern_catches_each_kind_of_tag():
    spec, flag = "spec ", "FLAG-"          # split so that this file holds no tag itself
    for tag in (spec + "001 s.4.4", "Spec 002 section 6.1", f"({flag}18)", "the spec's table",
                "the specs' errata", "T-P12", spec + "000 s.7 E1", "(A11)", "(G1)", "spec 4.4"):
        assert UNSHIPPED.search(tag), tag
    for fine in ("spec(\"ucb1\", 2)", "AlgorithmSpec", "specified", "(A, B)", "eq. (2.2)"):
        assert not UNSHIPPED.search(fine), fine


@pytest.mark.exact
def test_errata_anchors_exist():
    """Every ``docs/errata.md#anchor`` cited in code and tests names an entry of the errata page."""
    errata = (ROOT / "docs" / "errata.md").read_text()
    anchors = set(re.findall(r'id="([a-z0-9-]+)"', errata)) | set(re.findall(r"\{#([a-z0-9-]+)\}", errata))
    cited = {(str(p.relative_to(ROOT)), a) for p in _files()
             for a in re.findall(r"errata\.md#([a-z0-9-]+)", p.read_text(errors="replace"))}
    heading_ids = {re.sub(r"[^a-z0-9 -]", "", h.lower()).strip().replace(" ", "-")
                   for h in re.findall(r"^#+ (.*?)(?: \{#.*\})?$", errata, flags=re.M)}
    missing = sorted((f, a) for f, a in cited if a not in anchors | heading_ids)
    assert not missing, missing
