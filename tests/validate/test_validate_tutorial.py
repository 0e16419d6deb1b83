"""Every command of the validate tutorial (docs/tutorials/validate.md) runs from the repository's
root, exits as its output says (0 conforms, 1 differs) and prints the lines the page shows.

Kinds: smoke (the commands run from the root, with the page's arguments), exact (the seed is the
default 0, so each shown line, the p-values included, is reproduced to the letter; a line
``...`` stands for lines left out).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from dpbandits.cli import main

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "tutorials" / "validate.md"
FENCE = re.compile(r"```(\w*)\n(.*?)```", re.S)


def _commands() -> list[tuple[str, list[str]]]:
    """Each ``dpbandits validate`` line of a bash block, with the text block that follows it."""
    blocks = FENCE.findall(PAGE.read_text())
    found = []
    for (kind, body), (next_kind, next_body) in zip(blocks, blocks[1:] + [("", "")]):
        if kind != "bash":
            continue
        lines = [line for line in body.splitlines() if line.startswith("dpbandits validate")]
        assert len(lines) <= 1 or next_kind != "text", \
            "give each command its own output block: " + " | ".join(lines)
        shown = next_body.splitlines() if next_kind == "text" else []
        found += [(line, shown) for line in lines]
    return found


COMMANDS = _commands()


@pytest.mark.smoke
def test_the_page_has_commands_with_their_output():
    assert len(COMMANDS) >= 4 and all(shown for _, shown in COMMANDS)


@pytest.mark.smoke
@pytest.mark.exact
@pytest.mark.parametrize("command, shown", COMMANDS, ids=[c for c, _ in COMMANDS])
def test_a_tutorial_command_runs_from_the_root_as_shown(command, shown, monkeypatch, tmp_path,
                                                        capsys):
    monkeypatch.chdir(ROOT)
    status = main(shlex.split(command)[1:] + ["--no-progress", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    verdict = next(line for line in shown if line.startswith("behaviour:"))
    assert status == (0 if verdict.startswith("behaviour: CONFORMS (") else 1), out
    printed = [line.rstrip() for line in out.splitlines()]
    missing = [line for line in shown if line.strip() != "..." and line.rstrip() not in printed]
    assert not missing, f"{command}\nnot printed: {missing}\nprinted:\n{out}"
