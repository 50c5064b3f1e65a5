"""WAP and WTCP-Sinha through the Python API: the request/response
application's object times in `RunResult.flows`, the same workload over TCP, I-TCP, a WAP
gateway and a WTCP-Sinha proxy on GSM, and the rules tying a flow's transport to its
gateway as one-line errors."""

from __future__ import annotations

from pathlib import Path

import pytest

import lastmile
from lastmile.reproduce.experiments.wide_area import MECHANISMS, applies

WEB = (
    Path(__file__).resolve().parents[1] / "python/lastmile/reproduce/experiments/wide_area_web.toml"
)
#: Ten 3 KB objects at GSM's 9.6 kbps: at least 2.5 s each (3000 B x 8 / 9600 bit/s).
OBJECT_FLOOR_S = 3000 * 8 / 9600


@pytest.mark.parametrize("mechanism", ["tcp", "itcp", "wap", "wtcp_sinha"])
def test_every_object_arrives_over_gsm_whatever_the_transport(mechanism: str) -> None:
    overrides = {"topology.wireless.preset": "gsm", **MECHANISMS[mechanism]}
    result = lastmile.run(WEB, seed=1, overrides=overrides)
    flow = result.flows.iloc[0]
    assert bool(flow["completed"]), flow
    assert int(flow["objects_completed"]) == 10
    assert int(flow["bytes_delivered"]) == 30_000
    mean, median, longest = (
        float(flow["object_time_mean_s"]),
        float(flow["object_time_median_s"]),
        float(flow["object_time_max_s"]),
    )
    assert OBJECT_FLOOR_S < median <= longest
    assert OBJECT_FLOOR_S < mean <= longest < 20 * OBJECT_FLOOR_S


def test_bulk_flows_have_no_object_columns() -> None:
    result = lastmile.run(
        WEB,
        seed=1,
        overrides={
            "topology.wireless.preset": "gsm",
            "flow.0.app": {"kind": "bulk", "bytes": "5KB"},
        },
    )
    assert "object_time_mean_s" not in result.flows.columns


def test_a_wap_flow_without_a_gateway_is_refused_naming_the_field() -> None:
    with pytest.raises(lastmile.ScenarioError) as err:
        lastmile.run(WEB, overrides={"flow.0.transport": "wap"})
    assert "flow[0].transport" in str(err.value)
    assert len(str(err.value).splitlines()) == 1


def test_the_experiment_runs_each_mechanism_only_where_it_applies() -> None:
    assert not applies("wap", "gsm", "bulk") and applies("wap", "gsm", "web")
    assert applies("lle", "802.11b", "bulk")
    assert not applies("lle", "hiperlan2", "bulk") and applies("lle", "802.11b", "web")
