"""The report as one self-contained HTML page."""

from __future__ import annotations

import base64
import html
from pathlib import Path

from .style import STYLE, VERDICTS

__all__ = ["html_page", "DOCS_LINK", "EXPERIMENT_LINK"]

EXPERIMENT_LINK = "reproduce/{name}/{name}.md"
"""Where an experiment's name links in the HTML report: the page its reproduction wrote in the
report's folder (the paper's figure, sizes and claims)."""

DOCS_LINK = "../docs/algorithms/{name}.md"
"""Where an algorithm's name links in the HTML report: its page in the repository's docs folder,
relative to the report folder, which by default (``dpbandits-report``) sits in the repository's
root. A repository path rather than a site URL, since the docs are built locally."""


def _experiment_names() -> set[str]:
    try:
        from ..reproduce import EXPERIMENTS
    except Exception:                   # the page links what it can without the catalogue
        return set()
    return set(EXPERIMENTS)


def html_page(markdown_text: str, out: Path) -> str:
    """The report as one self-contained HTML page: one embedded stylesheet, a table of contents,
    every local PNG inlined, verdicts coloured and marked, algorithm names linked to their docs
    pages (:data:`DOCS_LINK`)."""
    import re

    import markdown

    from ..reference.registry import ALGORITHMS

    root = out.resolve()

    def inline(match: re.Match) -> str:
        alt, target = match.group(1), match.group(2)
        path = (out / target).resolve()
        if target.endswith(".png") and path.is_relative_to(root) and path.is_file():
            data = base64.b64encode(path.read_bytes()).decode()
            return f"![{alt}](data:image/png;base64,{data})"
        return alt

    # Nothing in the page is markup but what markdown makes of it: text taken from cached parts
    # (or from anywhere else) cannot inject tags, and only our own images and web links survive;
    # the links to docs pages are added after this, from the registry's names only.
    escaped = html.escape(markdown_text, quote=False)
    text = re.sub(r"!\[([^\]]*)\]\(([^)]+)\)", inline, escaped)
    converter = markdown.Markdown(extensions=["tables", "toc"],
                                  extension_configs={"toc": {"toc_depth": "2-3"}})
    body = converter.convert(text)
    body = re.sub(r'(href|src)="(?!https?://|#|data:image/png;base64,)[^"]*"', r'\1="#"', body)

    experiments = _experiment_names()

    def target(name: str) -> str:
        if name in ALGORITHMS:
            return DOCS_LINK.format(name=name)
        return EXPERIMENT_LINK.format(name=name) if name in experiments else ""

    def link(match: re.Match) -> str:
        href = target(match.group(1))
        return f'<a href="{href}">{match.group(0)}</a>' if href else match.group(0)

    def heading(match: re.Match) -> str:
        href = target(match.group(3))
        if not href:
            return match.group(0)
        return f'{match.group(1)}{match.group(2)}<a href="{href}">{match.group(3)}</a></h3>'

    body = re.sub(r"<code>([a-z0-9-]+)(?:\[[^<\]]*\])?(?: [^<]*)?</code>", link, body)
    body = re.sub(r"<td>((?P<name>[a-z0-9-]+)(?:\[[^<\]]*\])?(?: [^<]*)?)</td>",
                  lambda m: (f'<td><a href="{target(m.group("name"))}">{m.group(1)}</a></td>'
                             if target(m.group("name")) else m.group(0)), body)
    body = re.sub(r'(<h3)( id="[^"]*">)([a-z0-9-]+)</h3>', heading, body)

    def verdict(match: re.Match) -> str:
        tag, words = match.group(1), match.group(2)
        look, mark = VERDICTS[html.unescape(words).strip()]
        badge = (f'<span class="verdict {look}"><span class="mark" aria-hidden="true">{mark}'
                 f"</span>{words}</span>")
        return f"<{tag}>{badge}</{tag}>"

    words = "|".join(re.escape(v) for v in sorted(VERDICTS, key=len, reverse=True))
    body = re.sub(rf"<(td|strong)>({words})</(?:td|strong)>", verdict, body)
    body = re.sub(r"<table>", '<div class="table"><table>', body).replace("</table>", "</table></div>")
    toc = converter.toc if hasattr(converter, "toc") else ""
    legend = ('<p class="legend">Verdicts: ' + " ".join(
        f'<span class="verdict {look}"><span class="mark" aria-hidden="true">{mark}</span>{name}'
        "</span>" for name, (look, mark) in VERDICTS.items()
        if name in ("respected", "violated", "vacuous at this size", "inconclusive at this size",
                    "depends on reading", "could not fail", "could not pass",
                    "not testable")) + "</p>")
    head, _, rest = body.partition("</h1>")
    body = (f"{head}</h1>{legend}<nav class=\"toc\"><strong>Contents</strong>{toc}</nav>{rest}"
            if rest else body)
    footer = ("<footer>Algorithm names link to their pages in the repository's docs folder "
              f"({html.escape(DOCS_LINK.format(name='NAME'))}, relative to this report's folder, "
              "which by default sits in the repository's root); experiment names link to the "
              f"page their reproduction wrote beside this report "
              f"({html.escape(EXPERIMENT_LINK.format(name='NAME'))}).</footer>")
    return (f"<!doctype html><html lang='en'><head><meta charset='utf-8'>"
            "<meta name='viewport' content='width=device-width, initial-scale=1'>"
            f"<title>dpbandits verification report</title><style>{STYLE}</style></head>"
            f"<body><main>{body}{footer}</main></body></html>")
