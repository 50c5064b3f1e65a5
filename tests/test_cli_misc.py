"""`lastmile schema`, `validate`, `examples`, `--version`, and the import weight of the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import lastmile
from conftest import EXAMPLES, example, lastmile_cli


def test_version() -> None:
    proc = lastmile_cli("--version", check=True)
    assert proc.stdout.strip() == f"lastmile {lastmile.__version__}"
    assert lastmile.__version__.count(".") == 2


def test_schema_is_json_schema_of_the_scenario() -> None:
    proc = lastmile_cli("schema", check=True)
    schema = json.loads(proc.stdout)
    assert schema == json.loads(lastmile.schema())
    assert "$schema" in schema
    props = schema["properties"]
    assert {"name", "seed", "topology", "flow"} <= set(props)


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_validate_examples(name: str) -> None:
    proc = lastmile_cli("validate", str(example(name)), check=True)
    scenario = lastmile.load(example(name))
    expected = (
        f"ok: {name}: {len(scenario.nodes)} nodes, {len(scenario.links)} links, "
        f"{scenario.flow_count} flows"
    )
    assert proc.stdout.strip() == expected


def test_validate_counts() -> None:
    proc = lastmile_cli("validate", str(example("explicit-topology")), check=True)
    assert proc.stdout.strip() == "ok: explicit-topology: 4 nodes, 3 links, 2 flows"
    proc = lastmile_cli("validate", str(example("tulip-basic")), check=True)
    assert proc.stdout.strip() == "ok: tulip-basic: 3 nodes, 2 links, 1 flows"


def test_validate_yaml_and_json(tmp_path: Path) -> None:
    yaml_file = tmp_path / "s.yaml"
    yaml_file.write_text(
        "name: y\n"
        "topology:\n"
        "  preset: chain\n"
        "  wired: {rate: 10Mbps, delay: 1ms}\n"
        "  wireless: {rate: 1Mbps}\n"
        "flow:\n"
        "  - {src: fh, dst: mh, app: {kind: bulk, bytes: 1MB}}\n"
    )
    assert lastmile_cli("validate", str(yaml_file), check=True).stdout.startswith("ok: y: 3 nodes")
    json_file = tmp_path / "s.json"
    json_file.write_text(lastmile.load(yaml_file).to_json())
    assert lastmile_cli("validate", str(json_file), check=True).stdout.startswith("ok: y: 3 nodes")


def test_examples_lists_every_example_with_a_description() -> None:
    out = lastmile_cli("examples", check=True).stdout
    assert {"tulip-basic", "chain-per5-newreno", "wtcp-fading", "explicit-topology"} <= set(
        EXAMPLES
    )
    for name, ex in EXAMPLES.items():
        assert ex.description, name
        assert name in out and ex.description in out


def test_examples_cite_a_paper() -> None:
    for name, ex in EXAMPLES.items():
        header = "".join(line for line in ex.path.read_text().splitlines(True) if line[:1] == "#")
        assert any(p in header for p in ("TULIP", "WTCP", "Pentikousis", "LLE-TCP")), name


def test_console_script_is_installed() -> None:
    script = Path(sysconfig.get_path("scripts")) / "lastmile"
    assert script.exists(), script
    proc = subprocess.run([str(script), "--version"], capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout.startswith("lastmile ")


def test_no_command_is_a_usage_error() -> None:
    proc = lastmile_cli()
    assert proc.returncode == 2 and "usage:" in proc.stderr


def test_cli_and_package_import_neither_pandas_nor_pyarrow_nor_numpy() -> None:
    code = (
        "import sys, lastmile, lastmile.cli\n"
        "heavy = sorted({'pandas', 'pyarrow', 'numpy'} & set(sys.modules))\n"
        "print(','.join(heavy))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == ""


def modules_loaded_of(run: str, modules: set[str]) -> str:
    """Runs the Python code `run` (a `lastmile run --json` of a short run) in a new
    interpreter, checks that it printed a summary, and returns which of `modules` it had
    loaded by the end (comma-separated, "" for none)."""
    code = (
        f"import sys\n{run}"
        f"print(','.join(sorted({sorted(modules)!r} & sys.modules.keys())), file=sys.stderr)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(proc.stdout)["engine"]["stop_reason"] in {"stop_time", "completed"}
    return proc.stderr.strip()


def test_lastmile_run_starts_without_the_modules_it_does_not_use() -> None:
    """`lastmile run --json` pays for what it uses only: argparse's help formatter gets the
    terminal's width without `shutil` (which brings `bz2`, `lzma` and `zlib`), and
    `typing` and `copy` are imported by the type checker or on first use."""
    run = (
        "import runpy\n"
        "sys.argv = ['lastmile', 'run', '--json', '--example', 'chain-per5-newreno',\n"
        "            '--set', 'stop_time=1ms']\n"
        "try:\n"
        "    runpy.run_module('lastmile', run_name='__main__')\n"
        "except SystemExit:\n"
        "    pass\n"
    )
    assert modules_loaded_of(run, {"shutil", "bz2", "lzma", "typing", "copy"}) == ""


#: Command lines of `lastmile run` and whether `cli._simple_run` reads them itself.
_RUN_LINES = [
    ("run f.toml", True),
    ("run f.toml --json", True),
    ("run --json f.toml --set a=b --set c=d", True),
    ("run --set a=b f.toml --seed 7 --max-events 1e6 --max-wall 3s --out o", True),
    ("run --example chain-per5-newreno --json --example tulip-basic", True),
    ("run '' --set 'x={a = 1}'", True),
    ("run --json", True),
    # Left to argparse: help, errors, options of several values, `=` and abbreviated forms.
    ("run --help", False),
    ("run -h f.toml", False),
    ("run f.toml g.toml", False),
    ("run f.toml --set", False),
    ("run f.toml --seed -1", False),
    ("run f.toml --js", False),
    ("run f.toml --seed=3", False),
    ("run f.toml --trace cwnd --json", False),
    ("run f.toml --pcap wireless --", False),
    ("run -- f.toml", False),
    ("validate f.toml", False),
    ("--version", False),
    ("", False),
]


@pytest.mark.parametrize(("line", "simple"), _RUN_LINES)
def test_simple_run_lines_are_read_as_argparse_reads_them(line: str, simple: bool) -> None:
    """`lastmile run` reads its simple command lines without argparse: each gives the
    namespace the argparse parser gives; anything else is left to argparse."""
    import shlex

    from lastmile import cli

    argv = shlex.split(line)
    read = cli._simple_run(argv)
    assert (read is not None) == simple
    if read is not None:
        assert vars(read) == vars(cli._parser(argv).parse_args(argv))


def test_lastmile_run_starts_without_argparse_and_the_modules_it_left() -> None:
    """A simple `lastmile run FILE` command line is read without argparse (with `gettext`
    and `locale`), names its file without pathlib (with `urllib.parse` and `ipaddress`),
    catches SIGTERM without `signal` and `contextlib` (called as the console script calls
    it: `python -m` brings `contextlib` with `runpy`), and loads no `lastmile.sweep`;
    `import lastmile` alone loads neither the scenario nor the run modules."""
    run = (
        "from lastmile.cli import main\n"
        f"main(['run', '--json', {str(example('chain-per5-newreno'))!r},\n"
        "      '--set', 'stop_time=1ms'])\n"
    )
    unused = {"argparse", "gettext", "locale", "signal", "contextlib", "pathlib"}
    unused |= {"urllib.parse", "ipaddress", "numbers", "lastmile.sweep", "lastmile.cli_argparse"}
    assert modules_loaded_of(run, unused) == ""
    code = (
        "import sys, lastmile\nprint(','.join(sorted(m for m in sys.modules if 'lastmile.' in m)))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "lastmile._errors"


def test_lastmile_run_of_an_example_finds_its_file_without_pathlib() -> None:
    """`lastmile run --example NAME` names the example's file as `lastmile run FILE` names
    its own: without pathlib (and its `urllib.parse` and `ipaddress`, about 2.6 ms)."""
    run = (
        "from lastmile.cli import main\n"
        "main(['run', '--json', '--example', 'chain-per5-newreno', '--set', 'stop_time=1ms'])\n"
    )
    assert modules_loaded_of(run, {"pathlib", "urllib.parse", "ipaddress", "argparse"}) == ""


def test_an_examples_file_is_its_path() -> None:
    """The string `lastmile run --example` uses is the file `lastmile.example_path` gives."""
    from lastmile._examples import example_file, examples

    for name, ex in examples().items():
        assert example_file(name) == str(lastmile.example_path(name)) == str(ex.path)
        assert ex.path.is_file()
    with pytest.raises(lastmile.UnknownNameError, match="known: "):
        example_file("no-such-example")


@pytest.mark.parametrize(
    "text",
    [
        "",
        ".",
        "./",
        "a.toml",
        "./a//b/./c/",
        "/",
        "//",
        "///",
        "//a",
        "///a/../b",
        "a/../b",
        "../x.toml",
        " ",
        "a\x00b",
        "/etc/passwd/x",
        "tests",
        "tests/conftest.py/x",
        "~",
    ],
)
def test_scenario_paths_read_as_pathlib_reads_them(text: str) -> None:
    """`lastmile run` names its scenario file as ``str(Path(SCENARIO))`` and checks it
    exists as ``Path.exists`` does, without importing pathlib."""
    from lastmile.cli_hints import path_exists, path_text

    assert path_text(text) == str(Path(text))
    assert path_exists(text) == Path(text).exists()
