"""The docs state the command line's own defaults and exit codes.

Kinds: exact (every default a page or the README states next to an option is one the command
line defines; every command's --help states the four exit statuses; the options tables of
docs/cli.md are generated from the parsers).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dpbandits.cli import COMMANDS, build_parser, defaults, options_table

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted((ROOT / "docs").rglob("*.md")) + [ROOT / "README.md"]
STATED = re.compile(r"`(--[a-z][a-z-]+)[^`]*`[^\n.;]{0,60}?\bdefault(?: is| of)?\s+`?([0-9][0-9_.]*)")


def _known_values(option: str) -> set[float]:
    """Every default the command line defines for ``option``, and the numbers its help states
    as defaults (``--samples auto`` states one per mode)."""
    parser = build_parser()
    commands = next(a for a in parser._actions if a.dest == "command")
    values = set()
    for sub in commands.choices.values():
        for action in sub._actions:
            if option in action.option_strings:
                if isinstance(action.default, (int, float)) and not isinstance(action.default, bool):
                    values.add(float(action.default))
                help_text = (action.help or "") % {"default": action.default}
                values |= {float(x) for x in re.findall(r"\b([0-9][0-9]*(?:\.[0-9]+)?)\b",
                                                        help_text.partition("default")[2])}
    return values


def _statements() -> list[tuple[str, str, str]]:
    found = []
    for page in PAGES:
        for option, value in STATED.findall(page.read_text()):
            found.append((page.name, option, value))
    return found


@pytest.mark.exact
def test_the_pages_find_stated_defaults():
    """The pattern does find statements (so the next test is not vacuous)."""
    assert any(option == "--timeout" for _, option, _ in _statements())


@pytest.mark.exact
@pytest.mark.parametrize("page, option, value", _statements())
def test_a_default_stated_in_the_docs_is_the_command_lines(page, option, value):
    known = _known_values(option)
    if not known:
        pytest.skip(f"{option} has no numeric default in dpbandits (or belongs to an example program)")
    assert float(value.replace("_", "")) in known, (page, option, value, known)


@pytest.mark.exact
def test_the_timeout_and_samples_defaults_are_one_number_each():
    audit, validate = defaults("audit"), defaults("validate")
    assert audit["--timeout"] == validate["--timeout"] == 30.0
    from dpbandits.audit.external import DEFAULT_TIMEOUT
    assert DEFAULT_TIMEOUT == 30.0


@pytest.mark.exact
@pytest.mark.parametrize("command", COMMANDS)
def test_every_help_states_the_exit_statuses(command, capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args([command, "--help"])
    text = capsys.readouterr().out
    for status in ("0  consistent", "1  violation", "2  bad usage", "3  could not test"):
        assert status in text


@pytest.mark.exact
def test_the_options_table_is_read_from_the_parser():
    table = options_table("audit")
    assert "| `--timeout` | `30.0` |" in table and "| `--seed` | `0` |" in table
    assert "<!-- dpbandits:options audit -->" in (ROOT / "docs" / "cli.md").read_text()


@pytest.mark.exact
def test_the_report_duration_is_one_number():
    """``report --help``, the module and the README state the same measured duration."""
    from dpbandits.report import DEFAULT_MINUTES

    assert f"about {DEFAULT_MINUTES:g} minutes" in (ROOT / "README.md").read_text()
    assert f"about {DEFAULT_MINUTES:g} minutes" in options_table("report")
