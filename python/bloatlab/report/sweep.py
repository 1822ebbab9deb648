"""The report of a sweep: each metric against a swept parameter, one line per value of the
other parameters (e.g. per CCA), mean over seeds with ±1 standard deviation as error bars."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import EngFormatter, ScalarFormatter

from ..analysis.units import metric_axis, numeric_values
from ..errors import ScenarioError
from ..sweep.table import SweepResults
from .html import Plot, Section, esc, png, table

# Plotted by default when present: bottleneck metrics, then per group of flows.
DEFAULT_BOTTLENECK = (
    "bottleneck.utilisation",
    "bottleneck.drop_rate",
    "bottleneck.queue_delay_p50_s",
    "bottleneck.backlog_mean_bdp",
    "bottleneck.jain_index",
)
DEFAULT_GROUP = (
    "goodput_bps",
    "capacity_fraction",
    "rtt_p50_s",
    "retrans_ratio",
    "avg_bitrate_bps",  # DASH flows
    "avg_quality",
    "rebuffer_ratio",
    "stall_rate",
)
MAX_LINES = 12


@dataclass(frozen=True)
class Layout:
    """Which parameter is on the x axis and which ones make the lines."""

    x: str | None
    x_numbers: dict[Any, float] | None  # value → position, when the values are numeric
    x_unit: str
    lines: list[str]


def sweep_sections(
    results: SweepResults, metrics: Sequence[str] | None = None, x: str | None = None
) -> tuple[str, str, list[Section]]:
    rows = results.rows()
    done = [r for r in rows if r["status"] == "done"]
    chosen = list(metrics) if metrics else default_metrics(results, done)
    unknown = [m for m in chosen if m not in results.table.column_names]
    if unknown:
        raise ScenarioError(
            "--metric", f"no column {unknown[0]!r}; metrics are e.g. {', '.join(chosen[:5])}"
        )
    layout = choose_layout(results, done, x)
    seeds = sorted({r["seed"] for r in rows})
    title = f"bloatlab sweep: {results.name}"
    description = results.manifest.get("description") or ""
    subtitle = esc(
        f"{len(rows)} runs ({len(done)} done) · parameters: "
        f"{', '.join(results.parameters) or 'none'} · seeds {_seed_text(seeds)} · "
        f"{results.folder}"
    )
    if description:
        subtitle = f"{esc(description)}<br>{subtitle}"
    plots = [metric_plot(done, metric, layout) for metric in chosen]
    intro = (
        f"Each point is the mean over the seeds of a parameter combination; error bars are "
        f"±1 standard deviation over seeds. x axis: <code>{esc(layout.x or 'seed')}</code>"
        + (f"; one line per <code>{esc(', '.join(layout.lines))}</code>" if layout.lines else "")
        + "."
    )
    sections = [Section("Metrics", intro=intro, plots=[p for p in plots if p is not None])]
    sections.append(Section("Runs", html=_status_html(rows, results.parameters)))
    return title, subtitle, sections


def default_metrics(results: SweepResults, done: list[dict[str, Any]]) -> list[str]:
    columns = results.table.column_names
    groups = sorted({c.split(".")[1] for c in columns if c.startswith("groups.")})
    wanted = [*DEFAULT_BOTTLENECK]
    for metric in DEFAULT_GROUP:
        wanted.extend(f"groups.{g}.{metric}" for g in groups)
    return [m for m in wanted if m in columns and any(_finite(r.get(m)) for r in done)]


def choose_layout(results: SweepResults, rows: list[dict[str, Any]], x: str | None) -> Layout:
    varied = [p for p in results.parameters if len({_key(r[p]) for r in rows}) > 1]
    if x is not None and x not in results.parameters:
        raise ScenarioError("--x", f"{x!r} is not swept; swept: {', '.join(results.parameters)}")
    if x is None:
        numeric = [p for p in varied if numeric_values([r[p] for r in rows]) is not None]
        candidates = numeric or varied
        x = max(candidates, key=lambda p: len({_key(r[p]) for r in rows}), default=None)
    numbers: dict[Any, float] | None = None
    unit = ""
    if x is not None:
        values = list(dict.fromkeys(r[x] for r in rows))
        parsed = numeric_values(values)
        if parsed is not None:
            numbers = {_key(v): n for v, n in zip(values, parsed[0], strict=True)}
            unit = parsed[1]
    lines = [p for p in varied if p != x]
    return Layout(x, numbers, unit, lines)


def metric_plot(rows: list[dict[str, Any]], metric: str, layout: Layout) -> Plot | None:
    axis = metric_axis(metric)
    series: dict[tuple[Any, ...], dict[Any, list[float]]] = {}
    for row in rows:
        value = row.get(metric)
        if not isinstance(value, int | float) or not _finite(value):
            continue
        line = tuple(_key(row[p]) for p in layout.lines)
        where = _key(row[layout.x]) if layout.x else row["seed"]
        series.setdefault(line, {}).setdefault(where, []).append(float(value) * axis.scale)
    if not series:
        return None
    fig = Figure(figsize=(6.4, 3.8), layout="constrained")
    ax = fig.subplots()
    categories: list[Any] = []
    if layout.x_numbers is None:
        categories = list(dict.fromkeys(k for points in series.values() for k in points))
    for index, (line, points) in enumerate(sorted(series.items(), key=lambda i: str(i[0]))):
        if index >= MAX_LINES:
            break
        keys = list(points)
        if layout.x_numbers is not None:
            xs = np.array([layout.x_numbers[k] for k in keys])
        else:
            xs = np.array([categories.index(k) for k in keys], dtype=float)
        order = np.argsort(xs)
        means = np.array([np.mean(points[k]) for k in keys])[order]
        errors = np.array([np.std(points[k], ddof=1) if len(points[k]) > 1 else 0.0 for k in keys])
        label = ", ".join(str(v) for v in line) if line else None
        ax.errorbar(
            xs[order],
            means,
            yerr=errors[order],
            marker="o",
            ms=4,
            lw=1.5,
            capsize=3,
            label=label,
            color=f"C{index % 10}",
        )
    x_label = layout.x or "seed"
    if layout.x_numbers is not None:
        positions = sorted(set(layout.x_numbers.values()))
        if len(positions) > 2 and min(positions) > 0 and max(positions) / min(positions) >= 16:
            ax.set_xscale("log", base=2)
            ax.set_xticks(positions)
            ax.xaxis.set_major_formatter(ScalarFormatter())
            ax.xaxis.set_minor_formatter(ScalarFormatter())
            ax.tick_params(axis="x", which="minor", labelbottom=False)
        if layout.x_unit:
            x_label += f" ({layout.x_unit})"
    elif categories:
        ax.set_xticks(range(len(categories)), [str(c) for c in categories])
        if sum(len(str(c)) for c in categories) > 60:
            ax.tick_params(axis="x", labelrotation=20)
    ax.set_xlabel(x_label)
    ax.set_ylabel(axis.label)
    if axis.unit == "MB":
        ax.yaxis.set_major_formatter(EngFormatter())
    ax.grid(True, alpha=0.3)
    ax.set_title(axis.title, loc="left", fontsize="medium")
    if any(line for line in series) and len(series) > 1:
        ax.legend(title=", ".join(layout.lines), fontsize="small", title_fontsize="small")
    caption = f"<code>{esc(metric)}</code>"
    if len(series) > MAX_LINES:
        caption += f"; the first {MAX_LINES} of {len(series)} lines"
    return Plot(
        metric, f"{axis.title} ({axis.unit})" if axis.unit else axis.title, png(fig), caption + "."
    )


def _status_html(rows: list[dict[str, Any]], parameters: list[str]) -> str:
    counts: dict[str, int] = {}
    for row in rows:
        counts[row["status"]] = counts.get(row["status"], 0) + 1
    text = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
    failed = [r for r in rows if r["status"] != "done"]
    html = f"<p>{esc(text)}.</p>"
    if failed:
        head = ["run", *parameters, "seed", "status", "error"]
        body = [
            [r["run"], *(r[p] for p in parameters), r["seed"], r["status"], r["error"] or ""]
            for r in failed[:100]
        ]
        html += table(head, body, numeric_from=len(head))
        if len(failed) > 100:
            html += f"<p>… and {len(failed) - 100} more (see sweep.parquet).</p>"
    return html


def _seed_text(seeds: list[int]) -> str:
    if seeds and seeds == list(range(seeds[0], seeds[-1] + 1)) and len(seeds) > 2:
        return f"{seeds[0]}–{seeds[-1]}"
    return ", ".join(str(s) for s in seeds)


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _key(value: Any) -> Any:
    return value if isinstance(value, int | float | str | bool) or value is None else str(value)
