"""A candidate's text as data: what the auditor repeats of a candidate's messages, output and
errors never reads as a line or a verdict of ours (:func:`neutral`, :func:`quoted`;
docs/audit-protocol.md#isolation)."""

from __future__ import annotations

import re
from typing import Any

__all__ = ["QUOTED_CHARACTERS", "ERROR_CHARACTERS", "neutral", "quoted"]

QUOTED_CHARACTERS = 200
"""Characters of a candidate's own text (an exception's message) quoted in an error."""

ERROR_CHARACTERS = 2000
"""Characters of an error a host reports that the auditor repeats."""

_VERDICT_WORDS = re.compile(r"CONSISTENT|VIOLATION|CONFORMS|DIFFERS|COULD NOT TEST|INCONCLUSIVE|"
                            r"VACUOUS|HOLDS|SUPPORTED|CONTRADICTED|DEPENDS ON READING",
                            re.IGNORECASE)
"""The verdict words of the project, in any case."""

_ARROWED = re.compile(r"->(\s*)(?=" + _VERDICT_WORDS.pattern + ")", re.IGNORECASE)
"""An arrow before a verdict word, as our verdict lines end."""


def neutral(text: str, limit: int = ERROR_CHARACTERS) -> str:
    """``text`` from a candidate's process made safe to print inside one of our lines: one
    line, printable ASCII (anything else escaped), at most ``limit`` characters, with every
    verdict word in lower case and no arrow before one, so that no line of it reads as a
    verdict of ours."""
    text = str(text)
    cut = len(text) > limit
    text = " | ".join(part.strip() for part in text[:limit].splitlines())
    text = text.encode("ascii", "backslashreplace").decode("ascii")
    text = "".join(c if " " <= c <= "~" else f"\\x{ord(c):02x}" for c in text)
    text = _ARROWED.sub(r"- >\1", text)
    text = _VERDICT_WORDS.sub(lambda m: m.group(0).lower(), text)
    return text + (f"... (cut at {limit} characters)" if cut else "")


def quoted(text: Any, limit: int = QUOTED_CHARACTERS) -> str:
    """A candidate's own text as data: made :func:`neutral` and cut at ``limit`` characters,
    between single quotes (any quote inside escaped)."""
    try:
        text = str(text)
    except BaseException:
        return "(a message that could not be read)"
    cut = len(text) > limit
    body = neutral(text[:limit].replace("\\", "\\\\").replace("'", "\\'"), 2 * limit)
    return f"'{body}'" + (f" (cut at {limit} of {len(text)} characters)" if cut else "")
