"""MkDocs hook: hide the snippet section markers (``# --8<-- [start:name]``) that the algorithm
modules carry for ``pymdownx.snippets``, wherever a page shows the source around them."""

from __future__ import annotations

import re

MARKER = re.compile(r'[ \t]*(?:<span class="c1">)?# --8&lt;-- \[(?:start|end):[\w-]+\](?:</span>)?[ \t]*\n?')


def on_page_content(html: str, page, config, files) -> str:  # noqa: ARG001 (MkDocs API)
    return MARKER.sub("", html)
