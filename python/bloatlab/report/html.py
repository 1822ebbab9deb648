"""Self-contained HTML pages: PNG plots as data URIs (also written as files), plain tables."""

from __future__ import annotations

import base64
import html
import io
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from matplotlib.figure import Figure

from ..store import write_file

DPI = 110


@dataclass(frozen=True)
class Plot:
    """One figure: `name` names its PNG file; `caption` says what to read from it."""

    name: str
    title: str
    png: bytes
    caption: str = ""


@dataclass
class Section:
    title: str
    intro: str = ""  # HTML
    plots: list[Plot] = field(default_factory=list)
    html: str = ""  # HTML after the plots (tables)
    # grid: plots side by side; wide: one per row; paper: the intro beside the plots
    layout: Literal["grid", "wide", "paper"] = "grid"


def png(figure: Figure) -> bytes:
    """The figure as PNG bytes."""
    sink = io.BytesIO()
    figure.savefig(sink, format="png", dpi=DPI)
    return sink.getvalue()


def table(
    head: Sequence[str],
    rows: Sequence[Sequence[object]],
    *,
    numeric_from: int = 1,
    row_classes: Sequence[str] | None = None,
) -> str:
    """An HTML table; cells from column `numeric_from` on are right-aligned."""
    cells = "".join(f"<th>{html.escape(h)}</th>" for h in head)
    body = []
    for index, row in enumerate(rows):
        tds = "".join(
            f'<td class="{"num" if i >= numeric_from else ""}">{html.escape(str(c))}</td>'
            for i, c in enumerate(row)
        )
        css = f' class="{row_classes[index]}"' if row_classes else ""
        body.append(f"<tr{css}>{tds}</tr>")
    return f"<table><thead><tr>{cells}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def esc(text: str) -> str:
    return html.escape(text)


_STYLE = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d1d1f;
       margin: 0 auto; max-width: 1500px; padding: 0 24px 48px; background: #fff; }
header { border-bottom: 1px solid #ddd; margin-bottom: 8px; }
h1 { font-size: 1.6em; margin: 24px 0 4px; }
h2 { font-size: 1.25em; margin: 32px 0 8px; border-bottom: 1px solid #eee; padding-bottom: 4px; }
.subtitle { color: #555; margin: 0 0 16px; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(620px, 1fr)); gap: 16px; }
.grid.wide { grid-template-columns: 1fr; }
figure { margin: 0; padding: 8px; border: 1px solid #e5e5e5; border-radius: 6px; }
figure img { width: 100%; height: auto; display: block; }
figcaption { font-size: 0.9em; color: #444; margin-top: 6px; }
figcaption b { color: #1d1d1f; }
table { border-collapse: collapse; margin: 8px 0 16px; font-size: 0.92em; }
th, td { border-bottom: 1px solid #e5e5e5; padding: 3px 10px; text-align: left; }
th { background: #f6f6f6; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.fail td { background: #fdecea; }
tr.pass td:last-child { color: #1a7f37; font-weight: 600; }
tr.fail td:last-child { color: #c62828; font-weight: 600; }
.paper { display: grid; grid-template-columns: minmax(260px, 1fr) 2fr; gap: 16px;
         align-items: start; margin-bottom: 20px; }
.paper .claim { background: #f8f8fa; border-left: 3px solid #888; padding: 8px 12px; }
ul.claims { padding-left: 18px; margin: 8px 0 0; }
ul.claims li { margin-bottom: 6px; }
li.pass b { color: #1a7f37; }
li.fail b { color: #c62828; }
code { background: #f3f3f3; padding: 0 3px; border-radius: 3px; }
"""


def page(title: str, subtitle: str, sections: Sequence[Section]) -> str:
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{esc(title)}</title><style>{_STYLE}</style></head><body>",
        f'<header><h1>{esc(title)}</h1><p class="subtitle">{subtitle}</p></header>',
    ]
    for section in sections:
        parts.append(f"<section><h2>{esc(section.title)}</h2>")
        figures = "".join(figure_html(plot) for plot in section.plots)
        if section.layout == "paper":
            parts.append(
                f'<div class="paper"><div class="claim">{section.intro}</div>'
                f"<div>{figures}</div></div>"
            )
        else:
            if section.intro:
                parts.append(f"<p>{section.intro}</p>")
            if figures:
                wide = " wide" if section.layout == "wide" else ""
                parts.append(f'<div class="grid{wide}">{figures}</div>')
        parts.append(section.html)
        parts.append("</section>")
    parts.append("</body></html>\n")
    return "\n".join(parts)


def figure_html(plot: Plot) -> str:
    data = base64.b64encode(plot.png).decode("ascii")
    caption = f"<b>{esc(plot.title)}.</b> {plot.caption}" if plot.caption else esc(plot.title)
    return (
        f'<figure id="{esc(slug(plot.name))}"><img alt="{esc(plot.title)}" '
        f'src="data:image/png;base64,{data}"><figcaption>{caption}</figcaption></figure>'
    )


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-").lower() or "plot"


def write_page(
    out: str | os.PathLike[str], title: str, subtitle: str, sections: Sequence[Section]
) -> Path:
    """Write `out` (HTML) and every plot as `<out stem>_files/NN-<name>.png` beside it."""
    path = Path(out).absolute()
    folder = path.with_name(f"{path.stem}_files")
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob("*.png"):
        stale.unlink()
    plots = [plot for section in sections for plot in section.plots]
    for index, plot in enumerate(plots, start=1):
        write_file(folder / f"{index:02d}-{slug(plot.name)}.png", plot.png)
    write_file(path, page(title, subtitle, sections).encode("utf-8"))
    return path
