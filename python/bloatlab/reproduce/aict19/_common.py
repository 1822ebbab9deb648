"""What every AICT'19 figure shares: the testbed's hosts and path, its buffers in BDP, the
analysis windows, the two runs that several figures read (BBR alone; 2 BBR + 2 CUBIC), and the
paper's colours and axes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from matplotlib.axes import Axes

from ...builders import HOST_JITTER, bulk, dumbbell
from ...sweep.spec import label as sweep_label
from .._base import Mode

# The testbed's Raspberry Pis ran Linux 4.17, whose BBR provisions less inflight than the
# core's default (v5.4 on): no ACK-aggregation allowance, no +2 packets while probing, DRAIN
# and gain-cycle checks on packets in flight (`kernel = "4.17"`, `cc/bbr/mod.rs`).
KERNEL = "4.17"
BBR_CC: Any = {"kind": "bbr", "kernel": KERNEL}
BBR_LABEL = sweep_label(BBR_CC)  # how sweep tables name it
# BBR Shallow (Claypool, [22]): BBRv1 with its PROBE_BW cwnd gain at 1.5 instead of 2. The
# core names it `bbr-shallow`; `{ kind = "bbr", cwnd_gain = 1.5 }` gives the same runs.
BBR_SHALLOW_CC: Any = {"kind": "bbr-shallow", "kernel": KERNEL}

# The Pis' Linux sends TSO/GSO skbs of about 1 ms of data (`tso = true`): bursts that a shallow
# router queue has to absorb.
HOST: dict[str, Any] = {"tso": True}

RTT = "25ms"
FLOWS = [2, 4, 8]
RATES = ["40Mbps", "80Mbps", "120Mbps"]
BUFFERS_TABLE_I = [0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 4.0, 8.0]
# Fig. 10/12 draw lines through 2, 4 and 8 BDP; 3, 5 and 6 locate the crossing better.
BUFFERS_SHARES_FULL = [0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0]
BUFFERS_SHARES_QUICK = [0.5, 1.0, 1.75, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0]
BUFFERS_LOSS_QUICK = [0.5, 1.0, 2.0]
STEADY = ("120s", "240s")  # Fig. 7: "minutes 2 to 4 of a 5 minute connection"
MINUTE = ("60s", "120s")  # §IV-A: "1 minute of a 5 minute trial"

LOSS_TOLERANCE = 0.4  # relative, on a loss rate the paper states
SHALLOW = 0.5  # Fig. 6 and 8: "a bottleneck router queue of just 0.5 BDP", 80 Mb/s, 25 ms
PAPER_SHALLOW_LOSS = 0.10  # Fig. 6: "persists and averages over 10 percent"; Fig. 8 "about 10"
BBR, CUBIC = "C3", "C0"  # the paper's colours: BBR red, CUBIC blue


def buffer_label(b: float) -> str:
    """A buffer of `b` BDP as the scenario's queue limit."""
    return f"{b:g}BDP"


def bdp(label: Any) -> float:
    """A queue limit in BDP, read back from its label."""
    return float(str(label).removesuffix("BDP"))


def seconds(window: tuple[str, str]) -> tuple[float, float]:
    """An analysis window in seconds."""
    start, end = window
    return float(start.removesuffix("s")), float(end.removesuffix("s"))


def seeds(mode: Mode) -> int:
    """The paper's "3 identical trials" in `--full`, one in `--quick`."""
    return 3 if mode == "full" else 1


def loss_buffers(mode: Mode) -> list[float]:
    """Fig. 7's buffers: Table I's in `--full`, three in `--quick`."""
    return BUFFERS_TABLE_I if mode == "full" else BUFFERS_LOSS_QUICK


def share_buffers(mode: Mode) -> list[str]:
    """Fig. 10/12's buffers, as queue limits."""
    return [
        buffer_label(b) for b in (BUFFERS_SHARES_FULL if mode == "full" else BUFFERS_SHARES_QUICK)
    ]


def testbed(
    name: str,
    flows: Sequence[dict[str, Any]],
    duration: str,
    *,
    buffer: str = "1BDP",
    window: tuple[str, str] | None = None,
) -> dict[str, Any]:
    """The dumbbell every figure runs: 80 Mb/s (Table I's grids vary it), 25 ms, a drop-tail
    queue of `buffer`, the hosts' jitter; `window` is the summary's."""
    return dumbbell(
        "80Mbps", RTT, buffer, list(flows), duration, name=name, window=window, jitter=HOST_JITTER
    )


def steady_run(mode: Mode, name: str, flows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Analysed over minutes 2–4: 300 s runs in `--full`, 240 s (where the window ends) in
    `--quick`; each figure sweeps the buffer."""
    return testbed(name, flows, "300s" if mode == "full" else "240s", window=STEADY)


def bbr_alone(mode: Mode) -> dict[str, Any]:
    """Fig. 7 and 11's run: 2 BBR flows (the grid varies count, rate and buffer)."""
    return steady_run(mode, "aict19-bbr-loss", [bulk("bbr", BBR_CC, 2, **HOST)])


def bbr_and_cubic(mode: Mode) -> dict[str, Any]:
    """Fig. 10 and 12's run: 2 BBR + 2 CUBIC flows."""
    flows = [bulk("bbr", BBR_CC, 2, **HOST), bulk("cubic", "cubic", 2, **HOST)]
    return steady_run(mode, "aict19-bbr-cubic", flows)


def loss_grid(mode: Mode) -> dict[str, list[Any]]:
    """Table I: every buffer × flow count × rate."""
    return {
        "bottleneck.queue.limit": [buffer_label(b) for b in loss_buffers(mode)],
        "flow.bbr.count": FLOWS,
        "bottleneck.rate": RATES,
    }


def loss_by_buffer(rows: list[dict[str, Any]]) -> dict[float, list[float]]:
    """The bottleneck's drop rate of each run, by buffer (ascending)."""
    loss: dict[float, list[float]] = {}
    for r in rows:
        loss.setdefault(bdp(r["bottleneck.queue.limit"]), []).append(r["bottleneck.drop_rate"])
    return dict(sorted(loss.items()))


def time_axes(ax: Axes, ylabel: str) -> None:
    """A time series' axes: time in seconds, `ylabel` from 0, a light grid."""
    ax.set_xlabel("time (s)")
    ax.set_ylabel(ylabel)
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)


def buffer_axis(ax: Axes, xs: list[float]) -> None:
    """An x axis of router queue lengths in BDP, ticked at `xs`."""
    ax.set_xlabel("router queue length (multiples of BDP)")
    ax.set_xticks(xs, [f"{b:g}" for b in xs])
    ax.set_xlim(0, max(xs, default=2.0) + 0.15)
    ax.grid(True, alpha=0.3)
