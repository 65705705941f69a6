"""The Python package against the simulator it wraps: what a run and a
sweep give back, that they agree with each other and with the `radial`
program, errors that name the key, captures, and the example figure."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import radial

ROOT = Path(__file__).resolve().parents[2]
TRACE = ROOT / "scenarios" / "trace" / "wlan-cellular.toml"
S1 = ROOT / "scenarios" / "validation" / "s1-wireless-loss.toml"
FIG5A = ROOT / "scenarios" / "papers" / "rcp-fig5a.toml"

TINY = """
[scenario]
name = "tiny"
duration = "5s"

[[node]]
name = "A"
[[node]]
name = "B"

[[link]]
between = ["A", "B"]
rate = "2Mbit/s"
delay = "10ms"
queue = 20
loss = "${loss}"

[[flow]]
protocol = "tcp-sack"
from = "A"
to = "B"

[sweep]
seeds = [1, 2]
[sweep.params]
loss = [0.0, 0.02]
"""


def test_a_run_gives_the_summary_as_a_dict_and_the_series_as_dataframes():
    r = radial.run(TRACE)
    assert r.summary["scenario"] == "trace-wlan-cellular"
    flows = r.flows.set_index("name")
    assert list(flows.index) == ["r2cp", "ptcp", "tcp"]
    assert (flows.bytes_delivered == 300_000).all()
    assert (flows.corrupt_bytes == 0).all()
    assert list(r.series.columns) == ["time_s", "flow", "delivered_bytes", "throughput_mbps"]
    last = r.series.groupby("flow").delivered_bytes.max()
    assert (last == 300_000).all(), last
    # Both pipes of each multi-path flow brought data.
    per_pipe = r.pipes.groupby(["flow", "pipe"]).delivered_bytes.max()
    assert set(per_pipe.index) == {("r2cp", 0), ("r2cp", 1), ("ptcp", 0), ("ptcp", 1)}
    assert (per_pipe > 0).all(), per_pipe
    assert per_pipe.xs("r2cp").sum() >= 300_000


def test_the_same_seed_gives_the_same_run_and_set_moves_the_point():
    a = radial.run(S1, seed=3, set={"loss": 0.01})
    b = radial.run(S1, seed=3, set={"loss": 0.01})
    assert a.summary == b.summary
    pd.testing.assert_frame_equal(a.series, b.series)
    clean = radial.run(S1, seed=3, set={"loss": 0.0})
    assert a.summary["flows"][0]["retransmits"] > 2 * clean.summary["flows"][0]["retransmits"]
    assert clean.summary["flows"][0]["goodput_mbps"] > a.summary["flows"][0]["goodput_mbps"]


def test_scenario_text_works_as_a_file_does(tmp_path):
    f = tmp_path / "tiny.toml"
    f.write_text(TINY)
    assert radial.run(TINY, set={"loss": 0.02}).summary == radial.run(f, set={"loss": 0.02}).summary
    assert radial.parameters(TINY) == {"name": "tiny", "params": {"loss": [0.0, 0.02]}, "seeds": [1, 2]}


def test_bad_input_raises_errors_that_name_the_key():
    with pytest.raises(radial.ScenarioError, match=r"<text>:\d+: key `link\[0\]\.queue`"):
        radial.run(TINY.replace("queue = 20", "queue = 1"))
    with pytest.raises(radial.ScenarioError, match="no such sweep parameter"):
        radial.run(TINY, set={"los": 0.1})
    with pytest.raises(radial.ScenarioError, match="no link named `wifi`"):
        radial.run(TINY, pcap={"wifi": "x.pcap"})
    with pytest.raises(OSError, match="no such scenario file"):
        radial.run("scenarios/none.toml")
    with pytest.raises(radial.ScenarioError, match="no such sweep parameter"):
        radial.sweep(TINY, params={"rate": [1]})
    assert issubclass(radial.ScenarioError, ValueError)
    assert radial.ScenarioError.__module__ == "radial"
    assert radial.ScenarioError.__name__ == "ScenarioError"


def test_a_capture_holds_what_crossed_the_link(tmp_path):
    out = tmp_path / "ab.pcap"
    r = radial.run(TINY, set={"loss": 0.02}, pcap={"A-B": out})
    delivered = r.links.query("name == 'A-B'").delivered.sum()
    assert r.captures == {"A-B": delivered}
    data = out.read_bytes()
    assert data[:4] == bytes.fromhex("4d3cb2a1")  # nanosecond pcap, little-endian
    assert len(data) > 24 + delivered * (16 + 28 + 20)


def test_a_sweep_is_its_runs_in_sweep_order():
    df = radial.sweep(TINY, jobs=2)
    assert list(df.columns[:4]) == ["loss", "seed", "flow", "protocol"]
    assert list(zip(df.loss, df.seed)) == [(0.0, 1), (0.0, 2), (0.02, 1), (0.02, 2)]
    for row in df.itertuples():
        one = radial.run(TINY, seed=row.seed, set={"loss": row.loss}).summary["flows"][0]
        assert one["goodput_mbps"] == pytest.approx(row.goodput_mbps, abs=1e-6)
        assert one["retransmits"] == row.retransmits
    narrowed = radial.sweep(FIG5A, params={"loss": [0.01], "protocol": ["rcp", "rcp-eln"]}, seeds=[4])
    assert list(narrowed.protocol) == ["rcp", "rcp-eln"]
    assert (narrowed.loss == 0.01).all() and (narrowed.seed == 4).all()


def _radial_bin():
    path = os.environ.get("RADIAL_BIN")
    if path:
        assert Path(path).is_file(), f"RADIAL_BIN={path} is not a file"
        return path
    for p in (ROOT / "target" / "release" / "radial", ROOT / "target" / "debug" / "radial"):
        if p.is_file():
            return str(p)
    pytest.skip("no radial binary built (set RADIAL_BIN): the comparison with the program is not made")


def test_a_sweep_equals_the_programs_results_csv(tmp_path):
    binary = _radial_bin()
    f = tmp_path / "tiny.toml"
    f.write_text(TINY)
    subprocess.run([binary, "sweep", str(f), "--out", str(tmp_path / "out")], check=True,
                   capture_output=True)
    cli = (tmp_path / "out" / "results.csv").read_text()
    ours = radial.sweep(f).to_csv(index=False, float_format="%.6f", na_rep="")
    expected = pd.read_csv(tmp_path / "out" / "results.csv").to_csv(index=False, float_format="%.6f",
                                                                      na_rep="")
    assert ours == expected
    assert len(cli.splitlines()) == 1 + 4


def test_the_example_script_draws_figure_5a(tmp_path):
    out = tmp_path / "fig5a.png"
    script = ROOT / "python" / "examples" / "rcp_fig5a.py"
    done = subprocess.run([sys.executable, str(script), "--seeds", "1", "--out", str(out)],
                          check=True, capture_output=True, text=True)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert out.stat().st_size > 20_000
    # The printed table: RCP-ELN keeps most of the link at 10 % loss, TCP-SACK does not.
    last = done.stdout.splitlines()[-2].split()
    assert last[0] == "0.1000"
    rcp, rcp_eln, tcp_eln, tcp_sack = map(float, last[1:])
    assert rcp_eln > 1.5 and tcp_sack < 0.5


def test_colours_match_the_programs_figures():
    assert radial.COLOURS["r2cp"] == "#005ab5"
    assert all(c.startswith("#") and len(c) == 7 for c in radial.COLOURS.values())
