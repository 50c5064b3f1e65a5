"""The pictures of a run (`RunResult.plot`, `lastmile plot`) and the traces they read: an
unlimited ssthresh is a null (drawn as absent), a wireless frame carries the stream offset
of its data (so losses sit on the sequence plot), and each picture draws what the traces
hold."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

import lastmile
from conftest import example, lastmile_cli

OVERRIDES = {"flow.0.app.bytes": "300KB"}
ALL_TRACES = ["seq", "cwnd", "rtt", "wireless_tx"]


@pytest.fixture(scope="module")
def result() -> lastmile.RunResult:
    return lastmile.run(example("tulip-basic"), overrides=OVERRIDES, traces=ALL_TRACES)


def test_unlimited_ssthresh_is_null_until_the_first_loss(result: lastmile.RunResult) -> None:
    cwnd = result.trace("cwnd")
    ssthresh = cwnd["ssthresh_bytes"]
    assert str(ssthresh.dtype) == "UInt64"
    # RFC 5681 §3.1: ssthresh starts "arbitrarily high" — absent, not 2^64 - 1.
    assert ssthresh.isna().iloc[0]
    assert ssthresh.notna().any(), "a lossy run sets ssthresh after its first loss"
    first_set = int(ssthresh.notna().to_numpy().argmax())
    assert ssthresh.iloc[:first_set].isna().all()
    assert int(ssthresh.dropna().max()) < 10**7
    assert result.arrow("cwnd").column("ssthresh_bytes").null_count == first_set


def test_frames_lost_on_the_air_carry_the_offset_the_source_retransmits(
    result: lastmile.RunResult,
) -> None:
    wtx = result.trace("wireless_tx")
    seq = result.trace("seq")
    lost = wtx[wtx["lost"] & wtx["data"]]
    assert len(lost) > 0
    assert lost["offset"].notna().all()
    # No agent and no link-layer recovery: the source resends every byte lost on the air.
    resent = set(seq[seq["retransmission"] & ~seq["ack"]]["offset"].tolist())
    assert {int(o) for o in lost["offset"]} <= resent
    # Frames without data (the receiver's ACKs) have no offset.
    assert wtx[~wtx["data"]]["offset"].isna().all()
    # The first data frame on the air is the first byte of the stream.
    assert int(wtx[wtx["data"]]["offset"].iloc[0]) == 0


def test_run_result_plot_draws_every_picture(result: lastmile.RunResult, tmp_path: Path) -> None:
    figures = result.plot(out_dir=tmp_path, formats=["png", "svg"])
    assert list(figures) == ["seq", "cwnd", "rtt", "wireless", "throughput"]
    for name in figures:
        for fmt in ("png", "svg"):
            assert (tmp_path / f"{name}.{fmt}").stat().st_size > 5_000
    # The cwnd picture: ssthresh is absent (NaN gap) while unlimited, and the axis is in
    # kilobytes, not stretched to 1.8e19.
    ax = figures["cwnd"].axes[0]
    ssthresh = next(line for line in ax.get_lines() if "ssthresh" in str(line.get_label()))
    ydata = [float(y) for y in np.asarray(ssthresh.get_ydata(), dtype="float64")]
    assert math.isnan(ydata[0]) and any(not math.isnan(y) for y in ydata)
    assert ax.get_ylim()[1] < 1e4
    # The sequence picture marks the losses and the retransmissions.
    legend = figures["seq"].axes[0].get_legend()
    assert legend is not None
    labels = [t.get_text() for t in legend.get_texts()]
    assert any("lost on the air" in s for s in labels)
    assert any("retransmitted" in s for s in labels)
    # The wireless picture names the hop as the scenario does.
    hop_legend = figures["wireless"].axes[0].get_legend()
    assert hop_legend is not None
    assert [t.get_text() for t in hop_legend.get_texts()] == [
        "wireless: data frames sent",
        "wireless: data frames lost",
        "wireless: frames without data (ACKs, control) sent",
    ]


def test_run_result_plot_says_which_trace_to_record() -> None:
    plain = lastmile.run(example("tulip-basic"), overrides=OVERRIDES, traces=["rtt"])
    assert list(plain.plot("rtt")) == ["rtt"]
    with pytest.raises(KeyError, match=r"traces=\['cwnd'\]"):
        plain.plot("cwnd")
    bare = lastmile.run(example("tulip-basic"), overrides=OVERRIDES)
    with pytest.raises(KeyError, match="recorded: none"):
        bare.plot()


def test_plot_from_a_scenario_writes_a_run_directory(tmp_path: Path) -> None:
    out = tmp_path / "p"
    proc = lastmile_cli(
        "plot", "--example", "tulip-basic", "--set", "flow.0.app.bytes=200KB",
        "--seed", "3", "--out", str(out), "--only", "seq", "cwnd", "--format", "png",
        check=True,
    )  # fmt: skip
    for name in ("summary.json", "seq.parquet", "wireless_tx.parquet", "cwnd.parquet",
                 "seq.png", "cwnd.png"):  # fmt: skip
        assert (out / name).is_file(), proc.stderr
    assert not (out / "rtt.png").exists() and not (out / "seq.svg").exists()
    assert '"seed": 3' in (out / "summary.json").read_text()


def test_plot_from_a_run_directory_skips_what_was_not_traced(tmp_path: Path) -> None:
    out = tmp_path / "run"
    lastmile_cli(
        "run", "--example", "tulip-basic", "--set", "flow.0.app.bytes=200KB",
        "--trace", "cwnd", "--out", str(out), check=True,
    )  # fmt: skip
    proc = lastmile_cli("plot", str(out), check=True)
    assert (out / "cwnd.svg").is_file() and (out / "cwnd.png").is_file()
    assert "skipped rtt: record the rtt trace (--trace rtt)" in proc.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = lastmile_cli("plot", str(empty))
    assert proc.returncode == 2 and "no traces to draw" in proc.stderr


def test_import_lastmile_stays_light() -> None:
    import subprocess
    import sys

    code = (
        "import sys, lastmile, lastmile.plot, lastmile.cli; "
        "print(sorted(m for m in ('matplotlib', 'pandas', 'pyarrow', 'numpy') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
