"""The experiment-platform commands of `bloatlab`: sweep, report, reproduce, compare."""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import sys
from pathlib import Path
from typing import Any

from .errors import ScenarioError

# The command's exit statuses (0: done).
EXIT_FAILURE = 1
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130


def add_commands(commands: Any) -> None:
    """Add the subcommands to `bloatlab`'s subparsers."""
    sweep = commands.add_parser(
        "sweep",
        help="run a scenario over a grid of parameters and seeds (resumable)",
        description="Run every missing run of a sweep file into DIR (default results/<name>): "
        "run folders under DIR/runs, one row per run in DIR/sweep.parquet. Exits with 1 "
        "when a run failed (its error is in sweep.parquet; the next invocation retries it).",
    )
    sweep.add_argument("sweep", type=Path, metavar="SWEEP", help="sweep TOML file")
    sweep.add_argument(
        "-o", "--output", type=Path, metavar="DIR", help="sweep folder (default results/<name>)"
    )
    _executor_args(sweep)
    sweep.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a field of every run (as `bloatlab run --set`); repeatable",
    )
    sweep.add_argument(
        "--dry-run",
        action="store_true",
        help="list the runs and whether they are stored, invalid or to run; run nothing",
    )
    sweep.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    sweep.set_defaults(command=_sweep)

    report = commands.add_parser(
        "report",
        help="write a self-contained HTML report (and PNGs) for a run or a sweep folder",
    )
    report.add_argument("path", type=Path, metavar="PATH", help="a run folder or a sweep folder")
    report.add_argument(
        "-o", "--output", type=Path, metavar="HTML", help="default PATH/report.html"
    )
    report.add_argument(
        "--metric",
        action="append",
        default=[],
        metavar="NAME",
        help="sweeps: a metric column to plot (repeatable; default: a standard set)",
    )
    report.add_argument(
        "--x",
        metavar="KEY",
        help="sweeps: the swept parameter on the x axis (default: the one with the most "
        "values, numeric ones first)",
    )
    report.set_defaults(command=_report)

    reproduce = commands.add_parser(
        "reproduce",
        help="run a paper's experiments and compare our numbers with the paper's",
        description="Run a paper's experiments as sweeps into DIR, print each claim with the "
        "paper's value beside ours, and write DIR/report.html (figures, claims) and "
        "DIR/claims.json. Runs already stored are not run again. Exits with 1 when a claim "
        "or a run failed.",
    )
    reproduce.add_argument("paper", nargs="?", metavar="PAPER", help="e.g. aict19 (see --list)")
    mode = reproduce.add_mutually_exclusive_group()
    mode.add_argument(
        "--quick", dest="mode", action="store_const", const="quick", help="a smaller grid (CI)"
    )
    mode.add_argument(
        "--full",
        dest="mode",
        action="store_const",
        const="full",
        help="the paper's protocol (default)",
    )
    reproduce.add_argument("--list", action="store_true", help="list the papers available")
    reproduce.add_argument(
        "-o", "--output", type=Path, metavar="DIR", help="default results/reproduce/PAPER-MODE"
    )
    _executor_args(reproduce)
    reproduce.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    reproduce.set_defaults(command=_reproduce, mode="full")

    compare = commands.add_parser(
        "compare", help="metric differences between two runs or two sweeps"
    )
    compare.add_argument("a", type=Path, metavar="A", help="run folder or sweep folder")
    compare.add_argument("b", type=Path, metavar="B", help="run folder or sweep folder")
    compare.add_argument("--json", action="store_true", help="print JSON instead of a table")
    compare.add_argument(
        "--metric",
        action="append",
        default=[],
        metavar="PATTERN",
        help="only metrics matching this glob (e.g. 'bottleneck.*'); repeatable",
    )
    compare.add_argument("--all", action="store_true", help="also list metrics that did not change")
    compare.set_defaults(command=_compare)


def _executor_args(sub: argparse.ArgumentParser) -> None:
    where = sub.add_mutually_exclusive_group()
    where.add_argument(
        "--workers",
        type=int,
        metavar="N",
        help="local worker processes (default: all cores; 0: run in this process)",
    )
    where.add_argument(
        "--dask",
        metavar="ADDRESS",
        help="run on an existing dask.distributed cluster: scheduler address "
        "(tcp://host:8786) or scheduler file",
    )


def _check_workers(args: argparse.Namespace) -> None:
    if args.workers is not None and args.workers < 0:
        raise ScenarioError("--workers", f"{args.workers}: allowed ≥ 0")


def _sweep(args: argparse.Namespace) -> int:
    from .scenario import parse_override
    from .sweep import Sweep, describe, plan, run_sweep
    from .sweep.executor import default_workers

    _check_workers(args)
    sweep = Sweep.from_file(args.sweep)
    if args.overrides:
        fixed = dict(sweep.fixed)
        for text in args.overrides:
            key, value = parse_override(text)
            if key in sweep.parameters:
                raise ScenarioError(key, "is swept; --set cannot also fix it")
            fixed[key] = value
        sweep = dataclasses.replace(sweep, fixed=fixed)
    out = args.output or Path("results") / _safe(sweep.name)
    if args.dry_run:
        from .runstore import RunStore

        store = RunStore(out / "runs")
        for run in plan(sweep):
            state = "invalid" if run.error else (store.state(run.key) or "to run")
            why = f": {run.error}" if run.error else ""
            print(f"{run.key}  {state:<7}  {describe(run.point)}{why}")
        return 0
    outcome = run_sweep(sweep, out, workers=args.workers, dask=args.dask, progress=not args.quiet)
    where = f"Dask at {args.dask}" if args.dask else _workers_text(args.workers, default_workers())
    print(
        f"sweep {sweep.name}: {outcome.total} runs ({outcome.executed} computed, "
        f"{outcome.cached} already stored), {outcome.failed} failed, "
        f"{outcome.wall_s:.1f} s on {where}"
    )
    if outcome.executed:
        print(
            f"  simulation {outcome.simulate_s:.1f} s (core {outcome.core_s:.1f} s), "
            f"worker time {outcome.worker_s:.1f} s"
        )
    print(f"  results: {outcome.table_path}")
    for key, error in list(outcome.errors.items())[:10]:
        print(f"  failed {key}: {error}", file=sys.stderr)
    if outcome.failed > 10:
        print(f"  … and {outcome.failed - 10} more (see sweep.parquet)", file=sys.stderr)
    return EXIT_FAILURE if outcome.failed else 0


def _workers_text(workers: int | None, cores: int) -> str:
    if workers == 0:
        return "this process"
    count = workers or cores
    return f"{count} worker{'s' if count != 1 else ''}"


def _report(args: argparse.Namespace) -> int:
    from .report import write_report

    path = write_report(args.path, args.output, metrics=args.metric or None, x=args.x)
    print(f"report: {path}")
    return 0


def _reproduce(args: argparse.Namespace) -> int:
    from . import reproduce

    if args.list:
        for name, title in reproduce.available().items():
            print(f"{name:10}  {title}")
        return 0
    if not args.paper:
        raise ScenarioError("PAPER", f"name a paper: {', '.join(reproduce.available())}")
    _check_workers(args)
    out = args.output or Path("results") / "reproduce" / f"{args.paper}-{args.mode}"
    outcome = reproduce.reproduce(
        args.paper,
        mode=args.mode,
        out_dir=out,
        workers=args.workers,
        dask=args.dask,
        progress=not args.quiet,
    )
    print(outcome.text())
    return 0 if outcome.passed and not outcome.failed_runs else EXIT_FAILURE


def _compare(args: argparse.Namespace) -> int:
    from .compare import compare, format_comparison

    comparison = compare(args.a, args.b, patterns=args.metric or None, changed_only=not args.all)
    if args.json:
        print(json.dumps(comparison, indent=2, allow_nan=False, default=_json_default))
    else:
        print(format_comparison(comparison))
    return 0


def _json_default(value: Any) -> Any:
    return str(value)


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip(".") or "sweep"
