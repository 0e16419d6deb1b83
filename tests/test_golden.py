"""Behaviour kept across restructuring: the JSON that fixed invocations of the command print or
write is compared with stored copies (``tests/data/golden/``), field by field, with timings left
out. A change of the code's structure must leave every one of them identical; a change that means
to move a number regenerates the copies in its own commit and says why.

Kinds: exact (the same seeds give the same numbers, so any difference is a change of behaviour).
``list --json`` and the validations run by default (about 30 s); ``audit --all`` and the tiny
report's audit, bounds and algorithm parts are ``slow`` (about 2 minutes with two workers).

Regenerate with ``python tests/test_golden.py --write [NAME ...]`` from the repository's root.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "data" / "golden"

TIMING = ("seconds", "bounds_seconds")
"""Fields that hold wall-clock times: not compared."""

MACHINE = ("sandbox",)
"""Fields that state what this machine offers (whether the kernel has a sandbox for the
candidate): not compared."""

VALIDATIONS = {
    "validate-ucb1": ["--command", "sh examples/validate/ucb1.sh", "--protocol", "interactive",
                      "--against", "ucb1", "--horizon", "500", "--runs", "100"],
    "validate-lazy": ["--python", "examples/validate/implementations.py:PlainLazyUCB",
                      "--against", "anytime-lazy-ucb", "--epsilon", "1", "--horizon", "300",
                      "--runs", "50"],
    "validate-peek": ["--python", "examples/validate/implementations.py:peeking_leader",
                      "--callable", "--against", "ftl", "--horizon", "200", "--runs", "30"],
    "validate-omm": ["--python", "examples/validate/omm.py:OMM", "--against", "omm",
                     "--horizon", "300", "--runs", "30"],
}
"""Validations of the example candidates: a program, a class, a function of the whole table
and a semi-bandit class (one of them differs: ``peeking_leader`` looks ahead)."""

REPORT_PARTS = ("algorithms", "audit", "bounds")
"""The parts of ``report --budget tiny`` that restructuring must not move (the reproductions'
verdicts are judged by the claims' readings, which change on their own)."""


def _dpbandits(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c",
                           "import sys; from dpbandits.cli import main; sys.exit(main())", *args],
                          cwd=ROOT, capture_output=True, text=True, check=False)


def _normalised(value):
    """``value`` without timing and machine fields, floats rounded to 12 significant digits (the JSON
    writer's own rounding differs between platforms in the last digit only)."""
    if isinstance(value, dict):
        return {k: _normalised(v) for k, v in value.items() if k not in TIMING + MACHINE}
    if isinstance(value, list):
        return [_normalised(v) for v in value]
    if isinstance(value, float) and math.isfinite(value) and value != 0.0:
        return float(f"{value:.12g}")
    return value


def _differences(got, want, where: str = "") -> list[str]:
    """The paths at which ``got`` and ``want`` differ (at most a few, for a readable failure)."""
    if isinstance(got, dict) and isinstance(want, dict):
        out = [f"{where}/{k}: missing" for k in want if k not in got]
        out += [f"{where}/{k}: new" for k in got if k not in want]
        for k in want:
            if k in got:
                out += _differences(got[k], want[k], f"{where}/{k}")
        return out
    if isinstance(got, list) and isinstance(want, list):
        if len(got) != len(want):
            return [f"{where}: {len(got)} items, stored {len(want)}"]
        return [d for i, (g, w) in enumerate(zip(got, want)) for d in _differences(g, w, f"{where}[{i}]")]
    return [] if got == want else [f"{where}: {_from_first_difference(str(got), str(want))}"]


def _from_first_difference(got: str, want: str, before: int = 30, width: int = 90) -> str:
    """Both texts from a little before their first differing character (not cut where they
    are still equal), and that character's position."""
    at = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
    start = max(0, at - before)

    def shown(text: str) -> str:
        return ("..." if start else "") + text[start:start + width] + (
            "..." if len(text) > start + width else "")

    return f"{shown(got)!r} != stored {shown(want)!r} (first difference at character {at})"


def _produce(name: str) -> dict | list:
    """Run the invocation called ``name`` and return its JSON."""
    if name == "list":
        done = _dpbandits("list", "--json")
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)
    if name in VALIDATIONS:
        with tempfile.TemporaryDirectory() as out:
            done = _dpbandits("validate", *VALIDATIONS[name], "--json", "--out", out,
                              "--no-progress")
        assert done.returncode in (0, 1), done.stderr
        return json.loads(done.stdout)
    if name == "audit-all":
        with tempfile.TemporaryDirectory() as out:
            done = _dpbandits("audit", "--all", "--workers", "2", "--out", out, "--no-progress")
            assert done.returncode == 1, done.stderr
            return json.loads((Path(out) / "audit-claims.json").read_text())
    if name.startswith("report-tiny-"):
        raise AssertionError("report parts are produced together by _report_parts")
    raise KeyError(name)


def _report_parts() -> dict[str, dict]:
    with tempfile.TemporaryDirectory() as out:
        done = _dpbandits("report", "--budget", "tiny", "--workers", "2", "--out", out,
                          "--no-progress", "--part", "algorithms", "--part", "audit",
                          "--part", "bounds")
        assert done.returncode in (0, 1), done.stderr
        return {f"report-tiny-{p}": json.loads((Path(out) / "parts" / f"{p}.json").read_text())
                for p in REPORT_PARTS}


def _check(name: str, got) -> None:
    want = json.loads((GOLDEN / f"{name}.json").read_text())
    found = _differences(_normalised(got), _normalised(want))
    assert not found, (f"{name} moved ({len(found)} differences; if the move is intended, "
                       f"regenerate with `python tests/test_golden.py --write {name}` and say "
                       f"what moved in the commit message):\n" + "\n".join(found[:12]))


@pytest.mark.exact
@pytest.mark.parametrize("name", ["list", *VALIDATIONS])
def test_output_is_unchanged(name):
    _check(name, _produce(name))


@pytest.mark.exact
@pytest.mark.slow
def test_audit_all_is_unchanged():
    _check("audit-all", _produce("audit-all"))


@pytest.mark.exact
@pytest.mark.slow
def test_tiny_report_parts_are_unchanged():
    for name, got in _report_parts().items():
        _check(name, got)


@pytest.mark.exact
def test_a_moved_number_is_found():
    stored = json.loads((GOLDEN / "validate-lazy.json").read_text())
    moved = json.loads(json.dumps(stored))
    moved["evidence"]["path"]["largest_effect"]["effect"] += 1e-9
    moved["seconds"] = 123.0
    found = _differences(_normalised(moved), _normalised(stored))
    assert len(found) == 1 and found[0].startswith("/evidence/path/largest_effect/effect: ")


@pytest.mark.exact
def test_a_moved_text_is_shown_from_its_first_difference():
    """A long note that moved deep inside is shown from a little before the character that
    differs, in both texts (before: both cut at 120 characters, where they were still equal)."""
    head = "selection sample: 500 runs per side on each of the 18 candidate pairs, then " * 3
    got = head + "pairs 6 (0.648), 13 (0.615), 8 (0.506)"
    want = head + "pairs 6 (0.648), 13 (0.602), 8 (0.509)"
    found = _differences({"note": got}, {"note": want})
    at = len(head) + len("pairs 6 (0.648), 13 (0.6")
    assert found == [f"/note: '...{got[at - 30:]}' != stored '...{want[at - 30:]}' "
                     f"(first difference at character {at})"]


def _write(names: list[str]) -> None:
    names = names or ["list", *VALIDATIONS, "audit-all", *(f"report-tiny-{p}" for p in REPORT_PARTS)]
    parts = _report_parts() if any(n.startswith("report-tiny-") for n in names) else {}
    for name in names:
        value = parts[name] if name in parts else _produce(name)
        (GOLDEN / f"{name}.json").write_text(json.dumps(value, indent=1) + "\n")
        print(f"wrote {GOLDEN / name}.json")


if __name__ == "__main__":
    if sys.argv[1:2] != ["--write"]:
        sys.exit("usage: python tests/test_golden.py --write [NAME ...]")
    _write(sys.argv[2:])
