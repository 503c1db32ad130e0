"""Reports as strings: a self-contained HTML page (plots inlined as SVG, no outside file,
script or font) and the same tables as plain text for a terminal.

Every function returns a string and writes nothing, so a web view can serve the same
fragments (:func:`fragment`) inside its own page.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping, Sequence

STYLE = """
body { font-family: system-ui, "Noto Sans CJK JP", sans-serif; margin: 2em auto;
       max-width: 60em; padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; } h2 { font-size: 1.3em; margin-top: 2em; } h3 { font-size: 1.1em; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; }
th, td { padding: 0.25em 0.7em; border-bottom: 1px solid #ddd; text-align: right; }
th:first-child, td:first-child { text-align: left; }
figure { margin: 1em 1em 1em 0; display: inline-block; width: 46%; min-width: 20em;
         vertical-align: top; }
table { display: block; max-width: 100%; overflow-x: auto; }
:lang(ja) h1, :lang(ja) h2, :lang(ja) h3, :lang(ja) th { word-break: keep-all; line-break: strict; }
@media (max-width: 40em) {
  body { margin: 1em auto; }
  figure { width: 100%; min-width: 0; margin: 1em 0; }
}
figure svg { width: 100%; height: auto; }
figcaption { color: #555; font-size: 0.9em; }
p.note { color: #555; }
:focus-visible { outline: 0.2em solid #1a4fa0; outline-offset: 0.15em; }
"""

Cell = str | int | float | None


def _cell(value: Cell) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.2f}".rstrip("0").rstrip(".") if value != int(value) else f"{value:.0f}"
    return str(value)


def table_html(headers: Sequence[str], rows: Iterable[Sequence[Cell]], empty: str = "") -> str:
    """A table of ``rows`` under ``headers``; with no rows, the note ``empty`` instead (a
    table of headers alone says nothing)."""
    rows = list(rows)
    if not rows and empty:
        return note(empty)
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(_cell(c))}</td>" for c in row) + "</tr>"
        for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def table_text(headers: Sequence[str], rows: Iterable[Sequence[Cell]]) -> str:
    """A table as aligned text for a terminal."""
    cells = [list(headers)] + [[_cell(c) for c in row] for row in rows]
    widths = [max(_width(r[i]) for r in cells) for i in range(len(headers))]
    out = []
    for row in cells:
        parts = []
        for i, text in enumerate(row):
            pad = " " * (widths[i] - _width(text))
            parts.append(text + pad if i == 0 else pad + text)
        out.append("  ".join(parts).rstrip())
    return "\n".join(out)


def _width(text: str) -> int:
    """Columns on a terminal: CJK characters take two."""
    return sum(2 if ord(ch) > 0x2E7F else 1 for ch in text)


def figure_html(svg: str, caption: str) -> str:
    """An SVG plot as an HTML figure with its caption."""
    return (f'<figure data-plot="{html.escape(caption)}">{svg}'
            f"<figcaption>{html.escape(caption)}</figcaption></figure>")


def fragment(title: str, sections: Sequence[tuple[str, str]]) -> str:
    """The body of a report: a heading, then (heading, HTML) sections."""
    parts = [f"<h1>{html.escape(title)}</h1>"]
    for heading, body in sections:
        parts.append(f"<section><h2>{html.escape(heading)}</h2>{body}</section>")
    return "\n".join(parts)


def page(title: str, body: str, lang: str = "en") -> str:
    """A whole self-contained HTML document around ``body``, in the language ``lang``."""
    return (
        f"<!DOCTYPE html>\n<html lang=\"{lang}\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head>"
        f"<body>\n{body}\n</body></html>\n"
    )


def note(text: str) -> str:
    """A paragraph of note text, escaped."""
    return f'<p class="note">{html.escape(text)}</p>'


def figures(plots: Mapping[str, tuple[str, str]], *names: str) -> str:
    """The plots among ``names`` that exist, as figures; ``plots``: name -> (title, svg)."""
    return "".join(figure_html(plots[n][1], plots[n][0]) for n in names if n in plots)
