"""Results that read well: quantities parsed as the core reads them, one unit and one
precision per column, and unit axes sorted by value."""

from __future__ import annotations

import re

import pandas as pd
import pytest

import lastmile
from lastmile._units import column_format, metric_quantity, parse_quantity
from lastmile.cli_sweep import format_table
from lastmile.sweep.analysis import parse_axes


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("10ms", (0.01, "s")),
        ("500us", (0.0005, "s")),
        ("2min", (120.0, "s")),
        ("1Mbps", (1e6, "bps")),
        ("800kbps", (8e5, "bps")),
        ("42KB", (42_000.0, "bytes")),
        ("64KiB", (65_536.0, "bytes")),
        ("100pkt", (100.0, "pkt")),
    ],
)
def test_quantities_parse_to_base_units(text: str, expected: tuple[float, str]) -> None:
    value, unit = parse_quantity(text) or (None, None)
    assert unit == expected[1] and value == pytest.approx(expected[0])


def test_parsing_agrees_with_the_core() -> None:
    """The core's normalised scenario spells sizes in bytes: the same number."""
    scenario = lastmile.Scenario.from_text(
        'name = "u"\n[topology]\npreset = "chain"\n'
        'wired = { rate = "10Mbps" }\nwireless = { rate = "1Mbps" }\n'
        '[[flow]]\nsrc = "fh"\ndst = "mh"\ntcp = { rwnd = "64KiB" }\n'
        'app = { kind = "bulk", bytes = "42KB" }\n'
    )
    flow = scenario.to_dict()["flow"][0]
    assert parse_quantity(flow["tcp"]["rwnd"]) == parse_quantity("64KiB")
    assert parse_quantity(flow["app"]["bytes"]) == parse_quantity("42KB")


def test_not_quantities() -> None:
    for value in ("tahoe", "10", 10, "1.5 parsecs", None):
        assert parse_quantity(value) is None


def test_metric_names_carry_their_unit() -> None:
    assert metric_quantity("throughput_bps") == "bps"
    assert metric_quantity("delay_mean_s") == "s"
    assert metric_quantity("wireless_goodput_bytes") == "ratio"
    assert metric_quantity("wireless_goodput_wireless") == "ratio"
    assert metric_quantity("tcp_timeouts") is None


def test_a_column_has_one_unit_and_one_precision() -> None:
    fmt = column_format("throughput_bps", [89_187.3, 7_210.0, 912_345.0])
    assert fmt.header("throughput_bps") == "throughput (kbps)"
    assert [fmt(v) for v in (89_187.3, 7_210.0, 912_345.0)] == ["89", "7", "912"]
    ratio = column_format("wireless_goodput_wireless", [0.834, 0.0123])
    assert ratio.header("wireless_goodput_wireless") == "wireless_goodput_wireless (ratio)"
    assert ratio(0.834) == "0.834" and ratio(0.0123) == "0.012"
    delay = column_format("delay_mean_s", [0.0817, 0.4664])
    assert delay.header("delay_mean_s") == "delay_mean (ms)"


def test_a_results_table_never_mixes_styles() -> None:
    frame = pd.DataFrame(
        {
            "variant": ["a", "b"],
            "topology.wireless.delay": ["100ms", "10ms"],
            "runs": [10, 10],
            "failed": [0, 0],
            "throughput_bps_mean": [89_187.3, 1_250_000.0],
            "throughput_bps_ci95": [7_210.0, 31_000.0],
        }
    )
    table = format_table(parse_axes(frame, ["variant", "topology.wireless.delay"]))
    assert "e+" not in table and "throughput (Mbps)" in table
    # One unit (Mbps, from the largest mean) and two decimals, mean and half-width alike.
    assert re.findall(r"(\d+\.\d+) ± (\d+\.\d+)", table) == [("0.09", "0.01"), ("1.25", "0.03")]


def test_unit_axes_sort_by_value_and_get_a_numeric_column() -> None:
    frame = pd.DataFrame({"variant": ["x"] * 3, "d": ["100ms", "10ms", "1s"], "v": [1, 2, 3]})
    out = parse_axes(frame, ["variant", "d"])
    assert out["d"].tolist() == ["10ms", "100ms", "1s"]
    assert out["d_s"].tolist() == pytest.approx([0.01, 0.1, 1.0])
    assert list(out.columns) == ["variant", "d", "d_s", "v"]
