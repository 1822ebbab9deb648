"""The kernel's TCP counters that run.sh saves around every run (`nstat -asz` in each host's
namespace: nstat.before / nstat.after for the server, nstat.cli.before / nstat.cli.after for
the client), and what they say about loss recovery: the server's timeouts, tail-loss probes,
lost retransmissions and SACK reneging, and the client's out-of-order queue pruning, which is
the receiver-side cause of reneging."""

from pathlib import Path

# the sender's loss recovery
SERVER = (
    "TcpRetransSegs",
    "TcpExtTCPTimeouts",
    "TcpExtTCPLossProbes",
    "TcpExtTCPLostRetransmit",
    "TcpExtTCPSACKReneging",
    "TcpExtTCPSpuriousRTOs",
)
# the receiver's memory: an out-of-order queue pruned is SACKed data thrown away
CLIENT = (
    "TcpExtTCPOFOQueue",
    "TcpExtTCPOFODrop",
    "TcpExtPruneCalled",
    "TcpExtOfoPruned",
    "TcpExtRcvPruned",
    "TcpExtTCPRcvQDrop",
)


def counters(path: Path) -> dict[str, int]:
    """nstat output: counter name → value."""
    found = {}
    for line in path.read_text().splitlines():
        parts = line.split()
        if len(parts) >= 2 and not line.startswith("#"):
            found[parts[0]] = int(parts[1])
    return found


def increments(out: Path, host: str = "") -> dict[str, int] | None:
    """Each counter's increase over the run on one host ("" the server, "cli" the client), or
    None if the run saved no counters for it."""
    stem = f"nstat.{host}." if host else "nstat."
    before, after = out / f"{stem}before", out / f"{stem}after"
    if not (before.exists() and after.exists()):
        return None
    first, last = counters(before), counters(after)
    return {name: value - first.get(name, 0) for name, value in last.items()}


def recovery_lines(out: Path) -> list[str]:
    """The loss-recovery counters, one line per host that has them."""
    lines = []
    for host, names in (("", SERVER), ("cli", CLIENT)):
        if (delta := increments(out, host)) is not None:
            who = "client" if host else "server"
            lines.append(f"{who}: " + ", ".join(f"{n} {delta.get(n, 0)}" for n in names))
    return lines
