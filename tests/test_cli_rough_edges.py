"""The command line's rough edges, each as a new user met it: `--set` before the file,
replacing a whole table, a tag changed alone, an example's name given as a file, a number
where text was meant, `--out` with nothing to write, an unknown metric, a grid key typo,
the exception's name, and `lastmile examples` as a starting point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import lastmile
from conftest import SMALL, example, lastmile_cli


def error_line(*args: str) -> str:
    proc = lastmile_cli(*args)
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("lastmile: error: "), proc.stderr
    return lines[0]


def test_set_takes_one_key_value_so_the_file_may_follow() -> None:
    path = str(example("tulip-basic"))
    proc = lastmile_cli(
        "run", "--set", "flow.0.app.bytes=100KB", "--set", "seed=4", path, "--json", check=True
    )
    summary = json.loads(proc.stdout)
    assert summary["seed"] == 4 and summary["flows"][0]["bytes_delivered"] == 100_000


def test_replacing_a_whole_table_is_documented_and_works() -> None:
    help_text = lastmile_cli("run", "--help", check=True).stdout
    assert "topology.wireless.errors={model=" in " ".join(help_text.split())
    proc = lastmile_cli(
        "run", "--example", "wtcp-fading", "--set", "stop_time=5s",
        "--set", 'topology.wireless.errors={model="per", per=0.1}', "--json", check=True,
    )  # fmt: skip
    assert json.loads(proc.stdout)["wireless"]["frames_lost"] > 0


def test_changing_only_the_tag_says_to_replace_the_table() -> None:
    line = error_line(
        "run", "--example", "tulip-basic", "--set", "topology.wireless.errors.model=per"
    )
    assert "(--set topology.wireless.errors.model=per)" in line
    assert "table topology.wireless.errors" in line and "keeps its other keys (ber)" in line
    assert "replace the whole table instead" in line
    assert "--set 'topology.wireless.errors={model = \"per\", per = ...}'" in line


def test_the_tag_hint_names_the_forms_fields_for_a_gilbert_elliott_file() -> None:
    line = error_line(
        "validate", str(example("wtcp-fading")), "--set", "topology.wireless.errors.model=ber"
    )
    assert "mean_good" in line and '{model = "ber", ber = ...}' in line


def test_an_example_name_given_as_a_file_suggests_example() -> None:
    line = error_line("run", "tulip-basic")
    assert "it is the name of a built-in example: use --example tulip-basic" in line
    assert "use --example" in error_line("validate", "tulip-basic")
    assert "use --example" in error_line("plot", "tulip-basic")


def test_a_number_for_a_string_says_how_to_quote_it() -> None:
    line = error_line("run", "--example", "tulip-basic", "--set", "flow.0.name=123")
    assert "flow[0].name" in line
    assert "--set 'flow.0.name=\"123\"'" in line


def test_out_without_traces_says_what_it_wrote(tmp_path: Path) -> None:
    out = tmp_path / "o"
    proc = lastmile_cli("run", "--example", "tulip-basic", *SMALL, "--out", str(out), check=True)
    assert "--out without --trace or --pcap wrote no traces or captures" in proc.stderr
    assert f"wrote {out / 'summary.json'}" in proc.stderr
    assert sorted(p.name for p in out.iterdir()) == ["scenario.json", "summary.json"]


def test_pcap_does_not_swallow_the_scenario_file() -> None:
    line = error_line("run", "--pcap", "wireless", str(example("tulip-basic")))
    assert "--pcap takes link names" in line


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("store") / "s.duckdb"
    lastmile.sweep(
        {
            "name": "s",
            "scenario": str(example("chain-per5-newreno")),
            "seeds": 2,
            "grid": {"flow.0.app.bytes": ["20KB", "30KB"]},
        },
        jobs=1,
        store=path,
        progress=False,
    )
    return path


def test_an_unknown_metric_suggests_the_nearest_numeric_one(store: Path) -> None:
    line = error_line("results", str(store), "--metric", "throughput_bs")
    assert "did you mean throughput_bps?" in line
    listed = line.split("the numeric metrics are: ", 1)[1].split(", ")
    assert "throughput_bps" in listed and "tcp_timeouts" in listed
    assert not {"flow0_name", "engine_stop_reason", "scenario_name"} & set(listed)


def test_a_grid_key_typo_is_reported_once(tmp_path: Path) -> None:
    sweep = tmp_path / "t.sweep.toml"
    sweep.write_text(
        f'name = "t"\nscenario = "{example("chain-per5-newreno").as_posix()}"\nseeds = 1\n'
        '[grid]\n"topology.wireless.errors.pre" = [0.0, 0.01, 0.02, 0.05]\n'
    )
    line = error_line("sweep", str(sweep), "--dry-run")
    assert line.count("topology.wireless.errors.pre") == 1, line
    assert "[grid] topology.wireless.errors.pre: unknown key" in line
    assert 'did you mean "per"' in line


def test_scenario_error_is_shown_as_lastmile_scenario_error() -> None:
    assert repr(lastmile.ScenarioError) == "<class 'lastmile.ScenarioError'>"
    assert lastmile.ScenarioError.__module__ == "lastmile"
    with pytest.raises(lastmile.ScenarioError) as info:
        lastmile.load(example("tulip-basic"), ["flow.0.tcp.varient=tahoe"])
    assert type(info.value).__module__ == "lastmile"


def test_examples_show_their_files_and_print_one_as_a_template() -> None:
    out = lastmile_cli("examples", check=True).stdout
    for name, ex in lastmile.examples().items():
        assert name in out and str(ex.path) in out
    shown = lastmile_cli("examples", "--show", "wtcp-fading", check=True).stdout
    assert shown == lastmile.examples()["wtcp-fading"].path.read_text()
    assert "unknown example 'nope'" in error_line("examples", "--show", "nope")


def test_example_files_read_as_user_documentation() -> None:
    for ex in lastmile.examples().values():
        text = ex.path.read_text()
        assert "issue" not in text.lower(), f"{ex.name} mentions an internal issue"
        assert ex.description and not ex.description.endswith(",")
