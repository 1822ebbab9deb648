"""The `bloatlab` command.

    bloatlab run SCENARIO [-o DIR] [--set a.b=c ...] [--seed N] [--plot]
    bloatlab validate SCENARIO [--set a.b=c ...] [--seed N]
    bloatlab bench [--repeat N] [--json]
    bloatlab sweep SWEEP [-o DIR] [--workers N | --dask ADDRESS] [--set a.b=c ...] [--dry-run]
                   [-q]
    bloatlab report PATH [-o HTML] [--metric M ...] [--x KEY]
    bloatlab reproduce PAPER [--quick | --full] [-o DIR] [--workers N | --dask ADDRESS] [-q]
    bloatlab reproduce --list
    bloatlab compare A B [--json] [--metric PATTERN ...] [--all]

Exit codes: 0 success; 2 bad input (scenario or command line), with a message naming the
field, the value and what is allowed, and nothing written; 1 any other failure; 130 Ctrl-C.
`sweep` exits with 1 when a run failed, `reproduce` when a claim or a run failed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from . import __version__
from .commands import EXIT_BAD_INPUT, EXIT_FAILURE, EXIT_INTERRUPTED, add_commands
from .errors import ScenarioError
from .result import Result
from .run import resolve, simulate

T = TypeVar("T")


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        code: int = args.command(args)
        return code
    except ScenarioError as e:
        print(f"bloatlab: error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        # the reader went away (`bloatlab validate ... | head`): not an error of ours
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        print("bloatlab: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as e:
        if os.environ.get("BLOATLAB_DEBUG"):
            raise
        print(f"bloatlab: error: {e} (set BLOATLAB_DEBUG=1 for a traceback)", file=sys.stderr)
        return EXIT_FAILURE


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bloatlab",
        description="Simulate congestion control through a bottleneck.",
        epilog=f"Exit status: 0 done; {EXIT_BAD_INPUT} bad input (the message names the field "
        f"or option and what is allowed; nothing is written); {EXIT_FAILURE} any other failure; "
        f"{EXIT_INTERRUPTED} interrupted. `sweep` exits with {EXIT_FAILURE} when a run failed "
        f"(the others are kept), `reproduce` when a claim or a run failed.",
    )
    parser.add_argument("--version", action="version", version=f"bloatlab {__version__}")
    commands = parser.add_subparsers(required=True, metavar="COMMAND")

    def scenario_args(sub: argparse.ArgumentParser) -> None:
        sub.add_argument("scenario", type=Path, metavar="SCENARIO", help="scenario TOML file")
        sub.add_argument(
            "--set",
            dest="overrides",
            action="append",
            default=[],
            metavar="KEY=VALUE",
            help="override a field by dotted key, e.g. bottleneck.rate=25Mbps or "
            "flow.video.cc=bbr (flows by name or index); repeatable",
        )
        sub.add_argument("--seed", type=int, help="replace the scenario's seed")

    run = commands.add_parser("run", help="run a scenario and write its results folder")
    scenario_args(run)
    run.add_argument(
        "-o", "--output", type=Path, metavar="DIR", help="results folder (default results/<name>)"
    )
    run.add_argument("--plot", action="store_true", help="also write overview.png")
    run.set_defaults(command=_run)

    validate = commands.add_parser("validate", help="print the resolved scenario, or the error")
    scenario_args(validate)
    validate.set_defaults(command=_validate)

    bench = commands.add_parser("bench", help="measure simulator speed and memory")
    bench.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="runs per benchmark, the best kept (default %(default)s)",
    )
    bench.add_argument("--json", action="store_true", help="print JSON instead of a table")
    bench.set_defaults(command=_bench)

    add_commands(commands)
    return parser


def _run(args: argparse.Namespace) -> int:
    result = _interruptible(
        lambda: simulate(args.scenario, overrides=args.overrides, seed=args.seed)
    )
    name = _folder_name(result.summary.get("name"), args.scenario)
    folder = result.write(args.output or Path("results") / name, plot=args.plot)
    print(format_summary(result, folder))
    return 0


def _validate(args: argparse.Namespace) -> int:
    print(json.dumps(resolve(args.scenario, overrides=args.overrides, seed=args.seed), indent=2))
    return 0


def _bench(args: argparse.Namespace) -> int:
    from . import bench

    if args.repeat < 1:
        raise ScenarioError("--repeat", f"{args.repeat}: allowed ≥ 1")
    reports = bench.run_all(repeat=args.repeat)
    print(json.dumps(reports, indent=2) if args.json else bench.format_table(reports))
    return 0


def _folder_name(name: Any, scenario_path: Path) -> str:
    text = name if isinstance(name, str) and name else scenario_path.stem
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip(".") or "run"


def _interruptible(work: Callable[[], T]) -> T:
    """Run `work` on a worker thread so Ctrl-C is handled while the core holds no GIL.

    The core only returns to Python when a run ends; waiting on a thread keeps the main thread
    free to receive SIGINT. On Ctrl-C nothing has been written yet, so the process exits at
    once without waiting for the run.
    """
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = work()
        except BaseException as e:
            box["error"] = e

    worker = threading.Thread(target=target, name="bloatlab-simulate", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.2)
    except KeyboardInterrupt:
        print("bloatlab: interrupted; nothing written", file=sys.stderr)
        sys.stderr.flush()
        sys.stdout.flush()
        os._exit(EXIT_INTERRUPTED)
    if "error" in box:
        raise box["error"]
    value: T = box["value"]
    return value


def format_summary(result: Result, folder: Path | None = None) -> str:
    """A few lines for humans: per-flow goodput, RTT and retransmissions; the bottleneck."""
    summary, stats = result.summary, result.stats
    sim_s, wall_s = stats.get("sim_time_s"), stats.get("wall_time_s")
    head = f"{summary.get('name', 'run')} (seed {summary.get('seed')})"
    if isinstance(sim_s, int | float) and isinstance(wall_s, int | float):
        speed = f", {sim_s / wall_s:.0f}x real time" if wall_s > 0 else ""
        head += f": {sim_s:.1f} s simulated in {wall_s:.2f} s{speed}"
    lines = [head]
    flows: dict[str, dict[str, Any]] = summary.get("flows", {})
    width = max((len(name) for name in flows), default=4)
    lines.append(f"  {'flow':<{width}}  {'goodput':>11}  {'RTT p50':>9}  {'retrans':>8}")
    for name, flow in flows.items():
        lines.append(
            f"  {name:<{width}}  {_fmt(flow.get('goodput_bps'), 1e-6, '.2f', ' Mb/s'):>11}"
            f"  {_fmt(flow.get('rtt_p50_s'), 1e3, '.1f', ' ms'):>9}"
            f"  {_fmt(flow.get('retrans_ratio'), 100, '.2f', ' %'):>8}"
        )
    bottleneck = summary.get("bottleneck", {})
    lines.append(
        f"  bottleneck: utilisation {_fmt(bottleneck.get('utilisation'), 100, '.1f', ' %')}, "
        f"queue delay p50 {_fmt(bottleneck.get('queue_delay_p50_s'), 1e3, '.1f', ' ms')}, "
        f"drop rate {_fmt(bottleneck.get('drop_rate'), 100, '.2f', ' %')}"
    )
    if folder is not None:
        lines.append(f"  results: {folder}")
    return "\n".join(lines)


def _fmt(value: Any, scale: float, spec: str, unit: str) -> str:
    if not isinstance(value, int | float) or isinstance(value, bool):
        return "-"
    return f"{value * scale:{spec}}{unit}"


if __name__ == "__main__":
    sys.exit(main())
