"""Bad scenarios through the real CLI: exit code 2, a message naming the field, the value and what
is allowed, and nothing written (an existing results folder is left exactly as it was)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bloatlab import cli

GOOD = """
name = "bad-input"
duration = "2s"
[bottleneck]
rate = "10Mbps"
rtt = "20ms"
queue = { kind = "droptail", limit = "100KB" }
[[flow]]
name = "a"
cc = "cubic"
app = { kind = "bulk" }
"""

CASES = {
    "unknown field": (
        GOOD.replace('rtt = "20ms"', 'rtt = "20ms"\ncolour = "red"'),
        ["bottleneck", "colour"],
    ),
    "unknown CCA": (
        GOOD.replace('cc = "cubic"', 'cc = "vegas"'),
        ["flow[0].cc", "vegas", "`reno`, `cubic`, `cubic-quic`, `bbr`"],
    ),
    "unknown pacer": (
        GOOD.replace('cc = "cubic"', 'cc = "cubic"\npacer = "quic"'),
        ["flow[0].pacer", "quic", "linux", "nginx-quic"],
    ),
    "TSO with the QUIC pacer": (
        GOOD.replace('cc = "cubic"', 'cc = "cubic"\npacer = "nginx-quic"\ntso = true'),
        ["flow[0].tso", "nginx-quic", "TCP offload"],
    ),
    "unknown ACK policy": (
        GOOD.replace('cc = "cubic"', 'cc = "cubic"\nack_policy = "tcp"'),
        ["flow[0].ack_policy", "tcp", "linux", "quiche"],
    ),
    "unknown rate sampler": (
        GOOD.replace('cc = "cubic"', 'cc = "cubic"\nrate_sampler = "quic"'),
        ["flow[0].rate_sampler", "quic", "linux", "nginx-quic"],
    ),
    "jitter over half the RTT": (
        GOOD.replace('rtt = "20ms"', 'rtt = "20ms"\njitter = "15ms"'),
        ["bottleneck.jitter", "15ms", "0 ≤ jitter ≤ rtt/2"],
    ),
    "unknown topology": (
        GOOD.replace('rtt = "20ms"', 'rtt = "20ms"\ntopology = "star"'),
        ["bottleneck.topology", "star", "dumbbell", "loopback"],
    ),
    "negative rate": (
        GOOD.replace('"10Mbps"', '"-10Mbps"'),
        ["bottleneck.rate", "-10Mbps", "negative"],
    ),
    "zero rate": (GOOD.replace('"10Mbps"', '"0Mbps"'), ["bottleneck.rate", "greater than 0"]),
    "buffer below one packet": (
        GOOD.replace('"100KB"', '"1KB"'),
        ["bottleneck.queue.limit", "1000 bytes", "1500"],
    ),
    "dash.js profile constant out of range": (
        GOOD.replace(
            'app = { kind = "bulk" }',
            'app = { kind = "dash", video = "bbb", '
            'profile = { base = "v5", fast_switch_ahead = -1 } }',
        ),
        ["flow[0].app.profile", "fast_switch_ahead = -1", "0 ≤ fast_switch_ahead ≤ 100"],
    ),
    "malformed trace": (
        GOOD.replace('rate = "10Mbps"', 'trace = "bad.trace"'),
        ["bottleneck.trace", "bad.trace", "line 3"],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_bad_scenario_exits_2_naming_the_field_and_writes_nothing(
    core, case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text, expected = CASES[case]
    scenario = tmp_path / "scenario.toml"
    scenario.write_text(text)
    (tmp_path / "bad.trace").write_text("1\n2\nfast\n4\n")
    out = tmp_path / "results"
    out.mkdir()
    (out / "summary.json").write_text("previous results")
    before = sorted(p.name for p in tmp_path.iterdir())

    assert cli.main(["run", str(scenario), "-o", str(out)]) == 2

    err = capsys.readouterr().err
    for fragment in expected:
        assert fragment in err, f"{fragment!r} missing from: {err}"
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert [p.name for p in out.iterdir()] == ["summary.json"]
    assert (out / "summary.json").read_text() == "previous results"
