"""The look of the HTML report and its figures: the stylesheet and each verdict's class and symbol."""

from __future__ import annotations

__all__ = ["VERDICTS", "STYLE", "COLOURS"]

VERDICTS: dict[str, tuple[str, str]] = {
    "respected": ("good", "\u2713"), "consistent": ("good", "\u2713"),
    "supported": ("good", "\u2713"), "conforms": ("good", "\u2713"), "true": ("good", "\u2713"),
    "violated": ("bad", "\u2717"), "violation": ("bad", "\u2717"),
    "contradicted": ("bad", "\u2717"), "not supported": ("bad", "\u2717"),
    "differs": ("bad", "\u2717"), "false": ("bad", "\u2717"), "unproven": ("open", "?"),
    "vacuous at this size": ("void", "\u25cb"), "vacuous": ("void", "\u25cb"),
    "inconclusive at this size": ("open", "?"), "inconclusive": ("open", "?"),
    "depends on reading": ("mixed", "\u00b1"), "could not fail": ("void", "\u25cb"),
    "could not pass": ("void", "\u25cb"),
    "not testable": ("none", "\u2013"), "not applicable": ("none", "\u2013"),
    "non-private": ("none", "\u2013"), "could not test": ("none", "\u2013"),
}
"""A verdict's look in the HTML report: a class (its colour) and a symbol, so that colour is
never the only cue; the verdict's own words stay beside them."""

STYLE = """
:root{--ink:#1f2328;--muted:#59636e;--rule:#d1d9e0;--band:#f6f8fa;--accent:#0969da;
--good:#1a7f37;--good-bg:#dafbe1;--bad:#cf222e;--bad-bg:#ffebe9;--void:#6e7781;--void-bg:#eaeef2;
--open:#9a6700;--open-bg:#fff8c5;--mixed:#8250df;--mixed-bg:#fbefff;--none:#59636e;--none-bg:#f6f8fa}
*{box-sizing:border-box}
body{margin:0;color:var(--ink);background:#fff;font:16px/1.55 system-ui,-apple-system,"Segoe UI",
Roboto,"Helvetica Neue",Arial,sans-serif}
main{max-width:76rem;margin:0 auto;padding:2rem 1.5rem 4rem}
h1{font-size:2rem;margin:0 0 .25rem;letter-spacing:-.01em}
h2{font-size:1.45rem;margin:2.75rem 0 .75rem;padding-bottom:.3rem;border-bottom:1px solid var(--rule)}
h3{font-size:1.12rem;margin:2rem 0 .5rem}
h2,h3{scroll-margin-top:1rem}
p,li{max-width:62rem}
a{color:var(--accent);text-decoration:none}a:hover{text-decoration:underline}
code{font:.88em/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--band);
padding:.08em .32em;border-radius:4px}
nav.toc{background:var(--band);border:1px solid var(--rule);border-radius:8px;padding:.75rem 1.25rem;
margin:1.5rem 0}
nav.toc>strong{display:block;margin-bottom:.25rem}
nav.toc ul{margin:.2rem 0;padding-left:1.2rem}nav.toc li{margin:.1rem 0}
nav.toc>div>ul>li>ul{columns:3 14rem;font-size:.92rem}
#summary+ul{background:#fff;border:1px solid var(--rule);border-left:4px solid var(--accent);
border-radius:6px;padding:.75rem 1rem .75rem 2rem}
#summary+ul li{margin:.35rem 0}
.table{overflow-x:auto;margin:1rem 0}
table{border-collapse:collapse;font-size:.9rem;font-variant-numeric:tabular-nums}
th,td{border:1px solid var(--rule);padding:.35rem .6rem;vertical-align:top}
th{background:var(--band);text-align:left;font-weight:600;position:sticky;top:0}
tbody tr:nth-child(even){background:#fbfcfd}
img{max-width:100%;height:auto;display:block;margin:1rem 0;border:1px solid var(--rule);
border-radius:6px}
.verdict{display:inline-block;white-space:nowrap;font-weight:600;font-size:.85rem;
padding:.05rem .5rem;border-radius:999px;border:1px solid currentColor}
.verdict .mark{margin-right:.3rem}
.good{color:var(--good);background:var(--good-bg)}.bad{color:var(--bad);background:var(--bad-bg)}
.void{color:var(--void);background:var(--void-bg)}.open{color:var(--open);background:var(--open-bg)}
.mixed{color:var(--mixed);background:var(--mixed-bg)}
.none{color:var(--none);background:var(--none-bg)}
.legend{font-size:.9rem;color:var(--muted)}.legend .verdict{margin-right:.4rem}
footer{margin-top:3rem;color:var(--muted);font-size:.85rem}
"""
"""The report's one stylesheet, embedded in the page."""

COLOURS = {"good": "#1a7f37", "bad": "#cf222e", "void": "#6e7781", "open": "#bf8700",
           "mixed": "#8250df", "none": "#8c959f"}
