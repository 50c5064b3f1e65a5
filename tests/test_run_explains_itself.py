"""A run that explains itself: the summary and the run page say what
ran and how to run it again; switching algorithms from the command line; plots that draw
what matters (the windows, the directions, the bin width, a time window, labelled sweep
axes); the README's first command; where ``results --plot`` writes; and the slips.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from matplotlib.colors import to_hex

import lastmile
from conftest import SMALL, example, lastmile_cli, write

ROOT = Path(__file__).resolve().parent.parent
CHAIN = str(example("chain-per5-newreno"))


def summary_of(run_dir: Path) -> dict[str, object]:
    data = json.loads((run_dir / "summary.json").read_text())
    assert isinstance(data, dict)
    return data


# ---- 1: the summary and the page say what ran -------------------------------------------


def test_the_summary_carries_the_resolved_scenario_and_the_command(tmp_path: Path) -> None:
    out = tmp_path / "run"
    lastmile_cli(
        "run", "--example", "tulip-basic", *SMALL, "--seed", "3", "--out", str(out), check=True
    )
    summary = summary_of(out)
    scenario = summary["scenario"]
    assert isinstance(scenario, dict)
    wireless = scenario["topology"]["wireless"]
    assert (wireless["rate"], wireless["errors"]) == ("1Mbps", {"model": "ber", "ber": 1.5e-05})
    assert wireless["queue"] == "100pkt", "defaults are filled in"
    assert scenario["base_station"] == {"agent": "none"}
    tcp = scenario["flow"][0]["tcp"]
    assert (tcp["variant"], tcp["recovery"], tcp["cc"]) == ("reno", "reno", {"kind": "reno"})
    assert (tcp["rwnd"], tcp["min_rto"]) == ("42000B", "1s")
    assert scenario["flow"][0]["app"]["bytes"] == "200000B", "the --set is in"
    assert scenario["seed"] == 3, "the run's seed, not the file's"
    assert summary["command"] == (
        f"lastmile run --example tulip-basic --set flow.0.app.bytes=200KB --seed 3 --out {out}"
    )


def test_the_scenario_as_run_runs_again_to_the_same_result(tmp_path: Path) -> None:
    out = tmp_path / "run"
    lastmile_cli("run", CHAIN, *SMALL, "--seed", "5", "--out", str(out), check=True)
    first = summary_of(out)
    again = lastmile_cli("run", str(out / "scenario.json"), "--json", check=True)
    second = json.loads(again.stdout)
    for s in (first, second):
        s["engine"].pop("wall_s")  # type: ignore[union-attr]
        s.pop("command")
    assert second == first


@pytest.mark.parametrize("name", sorted(lastmile.examples()))
def test_every_example_resolved_loads_to_the_same_scenario(name: str) -> None:
    scenario = lastmile.load(example(name))
    again = lastmile.Scenario.from_text(scenario.to_json(), "json")
    assert again.to_dict() == scenario.to_dict()
    assert "null" not in scenario.to_json()


def test_the_run_page_shows_the_scenario_and_the_command(tmp_path: Path) -> None:
    out = tmp_path / "run"
    lastmile_cli(
        "run", "--example", "tulip-basic", *SMALL, "--trace", "cwnd", "--out", str(out), check=True
    )
    lastmile_cli("report", str(out), check=True)
    page = (out / "report.html").read_text()
    assert "<h2" in page and ">Scenario<" in page
    for key, value in [
        ("topology.wireless.rate", "1Mbps"),
        ("topology.wireless.errors.ber", "1.5e-05"),
        ("flow.0.tcp.rwnd", "42000B"),
        ("flow.0.tcp.cc.kind", "reno"),
        ("base_station.agent", "none"),
    ]:
        assert re.search(rf"<td>{re.escape(key)}</td>\s*<td[^>]*>{re.escape(value)}</td>", page), (
            key
        )
    assert "lastmile run --example tulip-basic --set flow.0.app.bytes=200KB" in page
    assert f"lastmile run {out / 'scenario.json'}" in page


def test_the_sweep_page_shows_the_base_scenario_and_the_command(tmp_path: Path) -> None:
    sweep = write(
        tmp_path,
        "s.sweep.toml",
        f'name = "page"\nscenario = "{CHAIN}"\nseeds = 2\n[grid]\n'
        '"topology.wireless.errors.per" = [0.0, 0.05]\n"flow.0.app.bytes" = ["20KB"]\n',
    )
    lastmile_cli("sweep", str(sweep), "--jobs", "1", check=True)
    lastmile_cli("report", str(tmp_path / "page.duckdb"), check=True)
    page = (tmp_path / "page.html").read_text()
    assert f"lastmile sweep {sweep}" in page
    assert re.search(r"<td>topology.wireless.rate</td>\s*<td[^>]*>1Mbps</td>", page)
    assert re.search(r"<td>flow.0.tcp.recovery</td>\s*<td[^>]*>newreno</td>", page)


# ---- 2: switching algorithms from the command line ------------------------------------


def test_set_cc_on_a_variant_file_keeps_the_recovery(tmp_path: Path) -> None:
    summary = json.loads(
        lastmile_cli(
            "run", CHAIN, *SMALL, "--set", "flow.0.tcp.cc=cubic", "--json", check=True
        ).stdout
    )
    assert (summary["flows"][0]["variant"], summary["flows"][0]["cc"]) == ("newreno", "cubic")
    summary = json.loads(
        lastmile_cli("run", CHAIN, *SMALL, "--set", "flow.0.tcp.recovery=sack", "--json").stdout
    )
    assert (summary["flows"][0]["variant"], summary["flows"][0]["cc"]) == ("sack", "reno")


def test_set_a_constant_of_a_cc_named_alone(tmp_path: Path) -> None:
    summary = json.loads(
        lastmile_cli(
            "run",
            CHAIN,
            *SMALL,
            "--set",
            "flow.0.tcp.cc=cubic",
            "--set",
            "flow.0.tcp.cc.beta=0.8",
            "--json",
            check=True,
        ).stdout
    )
    assert (summary["flows"][0]["variant"], summary["flows"][0]["cc"]) == ("newreno", "cubic")
    cc = summary["scenario"]["flow"][0]["tcp"]["cc"]
    assert (cc["kind"], cc["beta"], cc["c"]) == ("cubic", 0.8, 0.4), "the table, defaults in"


def test_a_congestion_control_given_as_variant_says_where_it_belongs() -> None:
    proc = lastmile_cli("run", CHAIN, "--set", "flow.0.tcp.variant=cubic")
    assert proc.returncode == 2
    assert '("cubic" is a congestion control: set flow[0].tcp.cc = "cubic")' in proc.stderr


# ---- 3: plots ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("plots") / "run"
    lastmile_cli(
        "run",
        CHAIN,
        "--set",
        "flow.0.app.bytes=2MB",
        "--trace",
        "seq",
        "cwnd",
        "wireless_tx",
        "--out",
        str(out),
        check=True,
    )
    return out


def test_the_cwnd_plot_draws_rwnd_the_send_window_and_ssthresh_apart(run_dir: Path) -> None:
    from lastmile.plot import draw, receiver_windows, traces_from_dir

    made = draw(
        traces_from_dir(run_dir), kinds=["cwnd"], rwnd=receiver_windows(summary_of(run_dir))
    )
    ax = made.figures["cwnd"].axes[0]
    lines = {line.get_label(): line for line in ax.get_lines()}
    assert set(lines) >= {
        "cwnd",
        "ssthresh",
        "rwnd (receiver's window, 42,000 B)",
        "send window = min(cwnd, rwnd)",
    }, set(lines)
    colours = {to_hex(line.get_color()) for line in lines.values()}
    assert len(colours) == 4, "each quantity in its own colour"
    send = np.asarray(lines["send window = min(cwnd, rwnd)"].get_ydata(), dtype=float)
    assert max(send) <= 42.0


def test_the_wireless_plot_draws_data_and_acks_apart(run_dir: Path) -> None:
    from lastmile.plot import draw, hop_names, traces_from_dir

    hops = hop_names(summary_of(run_dir))
    ax = draw(traces_from_dir(run_dir), kinds=["wireless"], hops=hops).figures["wireless"].axes[0]
    labels = [line.get_label() for line in ax.get_lines()]
    assert "wireless: data frames sent" in labels
    assert "wireless: frames without data (ACKs, control) sent" in labels
    assert "wireless: data frames lost" in labels
    # 1 Mbps carries at most ~89 frames of 1400 B a second: data alone stays below it.
    data = next(line for line in ax.get_lines() if line.get_label() == "wireless: data frames sent")
    assert np.asarray(data.get_ydata(), dtype=float).max() < 95
    assert re.match(r"frames per second \(per [\d.]+ (s|ms) bin\)", ax.get_ylabel())


def test_the_throughput_plot_states_its_bin_width(run_dir: Path) -> None:
    from lastmile.plot import draw, traces_from_dir

    ax = draw(traces_from_dir(run_dir), kinds=["throughput"]).figures["throughput"].axes[0]
    assert re.search(r"per [\d.]+ (s|ms) bin", ax.get_ylabel()), ax.get_ylabel()


def test_plot_from_to_draws_a_window_of_time(run_dir: Path, tmp_path: Path) -> None:
    proc = lastmile_cli(
        "plot",
        str(run_dir),
        "--from",
        "2s",
        "--to",
        "5s",
        "--out",
        str(tmp_path),
        "--format",
        "png",
    )
    assert proc.returncode == 0, proc.stderr
    from lastmile.plot import draw, traces_from_dir

    made = draw(traces_from_dir(run_dir), kinds=["seq", "cwnd"], window=(2.0, 5.0))
    for fig in made.figures.values():
        assert fig.axes[0].get_xlim() == (2.0, 5.0)
    one = lastmile_cli("plot", str(run_dir), "--from", "5s", "--to", "2s")
    assert one.returncode == 2 and "the window is empty" in one.stderr


def test_sweep_axes_get_the_keys_label_and_unit() -> None:
    from lastmile.plot import axis_label, results_figure

    assert axis_label("topology.wireless.errors.per") == (
        "The probability that a frame is lost\ntopology.wireless.errors.per"
    )
    assert (
        axis_label("flow.0.tcp.rwnd", "KB")
        == "The receiver's window (buffer) (KB)\nflow.0.tcp.rwnd"
    )
    assert axis_label("no.such.key") == "no.such.key"
    import pandas as pd

    frame = pd.DataFrame(
        {
            "variant": ["a", "a"],
            "topology.wireless.errors.per": [0.0, 0.1],
            "runs": [2, 2],
            "throughput_bps_mean": [1e5, 2e5],
            "throughput_bps_ci95": [1e3, 1e3],
        }
    )
    fig = results_figure(frame, "throughput_bps", "topology.wireless.errors.per")
    assert fig.axes[0].get_xlabel().startswith("The probability that a frame is lost")


# ---- 4: the README's first command ------------------------------------------------------


def test_the_readmes_first_command_shows_a_mechanism_at_work_without_a_warning(
    tmp_path: Path,
) -> None:
    readme = (ROOT / "README.md").read_text()
    first = re.search(r"```sh\n(.*?)\n```", readme, re.DOTALL)
    assert first is not None
    command = first.group(1).split("&&")[-1].split()
    assert command[:2] == ["lastmile", "run"], command
    proc = lastmile_cli(*command[1:], cwd=tmp_path, check=True)
    assert proc.stderr == "", proc.stderr
    rows: dict[str, list[str]] = {}
    for line in proc.stdout.splitlines():  # the flow table's rows come first
        if line.strip():
            rows.setdefault(line.split()[0], line.split())
    with_snoop, without = rows["with-snoop"], rows["without-snoop"]
    assert float(with_snoop[3]) > 1.5 * float(without[3]), "Snoop's throughput, well above"
    assert (with_snoop[6], without[6] != "0") == ("0", True), "no timeouts with Snoop"
    assert "agent 'snoop': local retransmissions" in proc.stdout


def test_a_stall_warning_says_it_is_the_scenarios_own_back_off() -> None:
    proc = lastmile_cli("run", "--example", "tulip-basic", check=True)
    (warning,) = [line for line in proc.stderr.splitlines() if "stalled" in line]
    summary = json.loads(lastmile_cli("run", "--example", "tulip-basic", "--json").stdout)
    flow = summary["flows"][0]
    assert flow["stall_cause"] == "backoff"
    # The count is the run's own (the golden summary pins it), said as the summary says it.
    assert warning.endswith(
        "the scenario's own back-off: a run of retransmission timeouts "
        f"({flow['tcp_timeouts']} in the run), each doubling the RTO, can span it; "
        "the channel kept losing"
    ), warning


#: WTCP's handoff path with I-TCP at the base station (Bad periods of 100 ms, 1 % wired
#: drops): in seed 8 the relay's half towards the mobile backs off to a 25.6 s RTO while
#: its buffer, full, closes the window the fixed host sees; the source probes it on its
#: persist timer for 75 s, and resumes when the relay does.
ITCP_RELAY_BACKOFF = """{
 "base_station": {
  "agent": "itcp",
  "itcp": {
   "tcp": {
    "min_rto": "200ms",
    "mss": "960B",
    "timer_granularity": "10ms",
    "variant": "tahoe"
   }
  }
 },
 "energy": {
  "profile": "ns3"
 },
 "flow": [
  {
   "app": {
    "bytes": "100000000B",
    "kind": "bulk"
   },
   "dst": "mh",
   "src": "fh",
   "start": "0s",
   "tcp": {
    "abc": 0,
    "ack": "every",
    "cc": "reno",
    "delack_timeout": "200ms",
    "dsack": false,
    "dupack_threshold": 3,
    "ebsn": false,
    "ecn": false,
    "eln": false,
    "fast_retransmit_after_timeout": false,
    "initial_rto": "1s",
    "initial_window": 1,
    "keep_sack_after_timeout": false,
    "limited_transmit": false,
    "max_rto": "60s",
    "min_rto": "200ms",
    "mss": "960B",
    "pacing": false,
    "prr": false,
    "rack": false,
    "recovery": "tahoe",
    "rtt_estimator": "rfc6298",
    "rwnd": "10000B",
    "ssthresh_rule": "rfc5681",
    "timer_granularity": "100ms",
    "timestamps": false,
    "ts_echo": "segment",
    "variant": "tahoe"
   },
   "transport": "tcp"
  }
 ],
 "name": "wtcp",
 "seed": 1,
 "stop_time": "200s",
 "topology": {
  "links": [],
  "nodes": [],
  "preset": "chain",
  "wired": {
   "delay": "100ms",
   "errors": {
    "model": "per",
    "per": 0.01
   },
   "link": "none",
   "mac": "p2p",
   "overhead": "0B",
   "queue": "100pkt",
   "rate": "10Mbps",
   "reverse_errors": {
    "model": "none"
   }
  },
  "wireless": {
   "delay": "10ms",
   "errors": {
    "bad_ber": 0.01,
    "good_ber": 1e-06,
    "mean_bad": "100ms",
    "mean_good": "1s",
    "model": "gilbert_elliott"
   },
   "link": "none",
   "mac": "p2p",
   "overhead": "0B",
   "queue": "20000B",
   "rate": "800kbps",
   "reverse_errors": {
    "bad_ber": 0.01,
    "good_ber": 1e-06,
    "mean_bad": "100ms",
    "mean_good": "1s",
    "model": "gilbert_elliott"
   }
  }
 }
}"""


def test_a_stall_behind_a_full_relay_is_back_off_not_a_lockup(tmp_path: Path) -> None:
    scenario = write(tmp_path, "itcp.json", ITCP_RELAY_BACKOFF)
    proc = lastmile_cli("run", str(scenario), "--seed", "8", check=True)
    (warning,) = [line for line in proc.stderr.splitlines() if "stalled" in line]
    summary = json.loads(lastmile_cli("run", str(scenario), "--seed", "8", "--json").stdout)
    flow = summary["flows"][0]
    assert flow["stalled"] and flow["stall_cause"] == "backoff", flow
    assert flow["tcp_persist_probes"] > 0
    assert f"{flow['tcp_persist_probes']} zero-window probes" in warning, warning


# ---- 5: where things are written ------------------------------------------------------


def test_results_plot_writes_under_out_unless_told(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    sweep = write(
        tmp_path / "src",
        "s.sweep.toml",
        f'name = "where"\nscenario = "{CHAIN}"\nseeds = 2\n[grid]\n'
        '"topology.wireless.errors.per" = [0.0, 0.05]\n"flow.0.app.bytes" = ["20KB"]\n',
    )
    lastmile_cli("sweep", str(sweep), "--jobs", "1", check=True)
    store = sweep.parent / "where.duckdb"
    work = tmp_path / "work"
    work.mkdir()
    lastmile_cli(
        "results",
        str(store),
        "--plot",
        "throughput_bps",
        "--x",
        "topology.wireless.errors.per",
        cwd=work,
        check=True,
    )
    assert (work / "out" / "where-throughput_bps-vs-topology.wireless.errors.per.png").is_file()
    assert not any(p.suffix == ".png" for p in sweep.parent.iterdir())


def test_the_ci_venv_is_one_per_clone_and_ignored() -> None:
    ci = (ROOT / ".ci" / "run").read_text()
    assert "VENV=${CI_VENV:-.ci/venv}" in ci
    assert "TMPDIR" not in ci.split("VENV=")[1].splitlines()[0]
    assert "/.ci/venv" in (ROOT / ".gitignore").read_text().splitlines()


# ---- 6: slips --------------------------------------------------------------------------


def test_help_names_the_capture_file_as_written() -> None:
    text = lastmile_cli("run", "--help", check=True).stdout
    assert "LINK.pcapng" in " ".join(text.split()) and ".pcap " not in text


def test_captions_cite_the_files_the_pictures_were_drawn_from(run_dir: Path) -> None:
    lastmile_cli("report", str(run_dir), check=True)
    page = (run_dir / "report.html").read_text()
    cited = re.findall(r"(?:drawn from )([^<)]*)", page)
    assert cited, page[:500]
    for group in cited:
        for name in group.split(", "):
            assert (run_dir.parent / name).is_file(), name
    assert "wireless (drawn from run/wireless_tx.parquet)" in page


def test_the_energy_table_shows_its_times_in_one_unit(tmp_path: Path) -> None:
    out = tmp_path / "run"
    lastmile_cli("run", "--example", "tulip-basic", *SMALL, "--out", str(out), check=True)
    lastmile_cli("report", str(out), check=True)
    page = (out / "report.html").read_text()
    section = page[page.rindex(">Energy per node<") :]
    header = re.findall(r"<th[^>]*>([^<]*)</th>", section[: section.index("</tr>")])
    times = [h for h in header if h.split(" (")[0] in ("transmit", "receive", "idle", "sleep")]
    assert len(times) == 4, header
    assert {h.split(" (")[1] for h in times} == {"s)"}, header


def test_plot_of_a_missing_directory_says_so(tmp_path: Path) -> None:
    proc = lastmile_cli("plot", "nosuch_dir", cwd=tmp_path)
    assert proc.returncode == 2
    assert "nosuch_dir: no such directory" in proc.stderr
