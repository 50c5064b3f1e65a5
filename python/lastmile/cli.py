"""The ``lastmile`` command: run, validate, schema, examples, plot, report, sweep, results,
reproduce, emulate.

Bad input never shows a traceback: it prints one line on stderr naming the file, the field
path, the bad value and what was expected, and exits with status 2 (any `LastmileError`:
a bad scenario, argument, store or sweep; an output folder that cannot be written, found
before the run). A run that fails inside the simulator exits with status 1. ``run`` warns
when the scenario implies a huge run, shows its progress after a few seconds, and on
Ctrl-C (or SIGTERM) prints the summary of the run so far and exits with status 130 (143);
with ``--max-events`` / ``--max-wall`` a run past its budget stops the same way, with
status 3. ``validate`` makes every check ``run`` makes before the first event.

The module imports only the standard library and the native core at start-up; pyarrow is
imported when ``--trace`` asks for Parquet files, and pandas never. That keeps a whole
``lastmile run --json`` process close to the simulation's own time.
"""

from __future__ import annotations

import math
import shlex
import sys
from collections.abc import Sequence

from lastmile import _core, cli_emulate, cli_hints, cli_reproduce, cli_sweep, cli_view, run_dir
from lastmile._errors import BudgetExceeded, LastmileError, RunInterrupted, SimulationError
from lastmile._progress import RunProgress, budget_warning
from lastmile._run import RunResult, check_out_dir, event_budget, run, validate
from lastmile._scenario import Scenario, load

# `typing` only for the type checker: importing it costs a few ms of every start-up.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    import signal as _signal
    from pathlib import Path
    from typing import Any
else:
    import _signal

__all__ = ["main"]

EXIT_OK = 0
EXIT_RUN_FAILED = 1
EXIT_BAD_INPUT = 2
EXIT_BUDGET = 3
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143


#: A CLI-level input problem (unknown example, conflicting arguments): exit status 2.
_BadInput = cli_hints.BadInput


def _wanted_command(argv: Sequence[str] | None) -> str | None:
    """The command `argv` names, if its first word is one; None otherwise (no command,
    an option first, a misspelt command)."""
    words = sys.argv[1:] if argv is None else list(argv)
    first = words[0] if words else ""
    if first == "--version":
        return ""  # No command's parser: the version is printed while parsing.
    return first if first in _COMMANDS else None


def _parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The ``lastmile`` parser, with full arguments for the command `argv` runs (for every
    command when `argv` names none)."""
    from lastmile.cli_argparse import Commands, Parser

    parser = Parser(
        prog="lastmile",
        description="A fast, deterministic simulator of TCP over wired-cum-wireless paths.",
    )
    parser.add_argument("--version", action="version", version=f"lastmile {_core.version()}")
    commands: Any = Commands(
        parser.add_subparsers(dest="command", required=True, metavar="COMMAND"),
        _wanted_command(argv),
    )

    p_run = commands.add_parser("run", help="run a scenario and print its summary")
    p_run.add_argument("scenario", nargs="?", metavar="SCENARIO", help="a .toml/.yaml/.json file")
    p_run.add_argument("--example", metavar="NAME", help="run a built-in example instead")
    cli_view.add_seed(p_run)
    _add_set(p_run)
    p_run.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    p_run.add_argument(
        "--trace",
        action="extend",
        nargs="+",
        default=[],
        metavar="NAME",
        choices=_core.trace_names(),
        help=f"record a trace into DIR/NAME.parquet ({', '.join(_core.trace_names())})",
    )
    p_run.add_argument(
        "--pcap",
        action="extend",
        nargs="+",
        default=[],
        metavar="LINK",
        help="capture a link's frames into DIR/LINK.pcapng (e.g. wireless)",
    )
    p_run.add_argument(
        "--out",
        metavar="DIR",
        help="where the summary, traces and captures go (out/<scenario name>)",
    )
    p_run.add_argument(
        "--max-events",
        metavar="N",
        help="stop the run after N events (e.g. 1e9): partial summary, exit status 3",
    )
    p_run.add_argument(
        "--max-wall",
        metavar="TIME",
        help="stop the run after TIME of wall-clock time (e.g. 30s, 5min, or seconds): "
        "partial summary, exit status 3",
    )

    p_validate = commands.add_parser("validate", help="check a scenario file")
    p_validate.add_argument("file", metavar="FILE")
    _add_set(p_validate)
    p_validate.add_argument(
        "--out", metavar="DIR", help="also check that a run could write into DIR"
    )

    p_schema = commands.add_parser("schema", help="print the JSON Schema of scenario files")
    p_schema.add_argument(
        "--markdown",
        action="store_true",
        help="print the scenario reference (docs/scenario-reference.md) instead",
    )
    p_examples = commands.add_parser(
        "examples", help="list the built-in example scenarios and their files"
    )
    p_examples.add_argument(
        "--show", metavar="NAME", help="print example NAME, to start a scenario from"
    )
    for module in (cli_view, cli_sweep, cli_reproduce, cli_emulate):
        if commands.wants_any(module.COMMANDS):
            module.register(commands)
    return parser


_add_set = cli_view.add_set


def _scenario_file(args: argparse.Namespace) -> Path | str:
    """The scenario file to run: an example's, or the SCENARIO given, as
    ``str(Path(SCENARIO))`` (without importing pathlib, which the core does not need)."""
    if args.example is not None and args.scenario is not None:
        raise _BadInput("give a SCENARIO file or --example NAME, not both")
    if args.example is not None:
        from lastmile._examples import example_file

        try:
            return example_file(args.example)
        except KeyError as e:
            raise _BadInput(str(e.args[0])) from None
    for link in args.pcap if "pcap" in args else ():
        from pathlib import Path

        if Path(link).suffix in (".toml", ".yaml", ".yml", ".json"):
            raise _BadInput(
                f"--pcap {link}: --pcap takes link names; give the scenario file before the "
                "options, or end the list with --"
            )
    if args.scenario is None:
        raise _BadInput("give a SCENARIO file or --example NAME (see `lastmile examples`)")
    instead = cli_hints.example_instead_of_file(args.scenario)
    if instead is not None:
        raise _BadInput(instead)
    return cli_hints.path_text(args.scenario)


def _explained(overrides: Sequence[str], path: Path | str, call: Any) -> Any:
    """`call()`, with a `ScenarioError` an override caused said in terms of what to type."""
    try:
        return call()
    except _core.ScenarioError as e:
        better = cli_hints.explain_override_error(e, overrides, path)
        if better is None:
            raise
        raise _BadInput(better) from None


def _throughput_unit(flows: list[dict[str, Any]]) -> tuple[str, float, str]:
    """The unit for the throughput column: (name, scale, format spec)."""
    top = max((float(f.get("throughput_bps") or 0.0) for f in flows), default=0.0)
    return ("Mbps", 1e6, ".3f") if top >= 1e6 else ("kbps", 1e3, ".1f")


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Columns aligned: the first to the left, numbers to the right."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        )

    return "\n".join([line(header), *(line(r) for r in rows)])


def _fmt(value: object, spec: str) -> str:
    return "-" if value is None else format(value, spec)


#: Flows listed one per row by ``lastmile run``; the rest are counted (``--json`` has all).
SHOWN_FLOWS = 32


def _flows_table(flows: list[dict[str, Any]], unit: str, scale: float, spec: str) -> list[str]:
    """One row per flow (the first `SHOWN_FLOWS`), units in the headers."""
    header = [
        "flow",
        "recovery",
        "cc",
        f"throughput ({unit})",
        "time (s)",
        "delivered (B)",
        "timeouts",
        "fast rtx",
        "rtx",
        "delay mean (s)",
        "delay std (s)",
    ]
    rows = [
        [
            str(f.get("name")),
            str(f.get("variant")),
            str(f.get("cc", "-")),
            _fmt((f.get("throughput_bps") or 0.0) / scale, spec),
            _fmt(f.get("completion_s"), ".3f") + ("" if f.get("completed", True) else "*"),
            _fmt(f.get("bytes_delivered"), "d"),
            _fmt(f.get("tcp_timeouts"), "d"),
            _fmt(f.get("tcp_fast_retransmits"), "d"),
            _fmt(f.get("tcp_retransmits"), "d"),
            _fmt(f.get("delay_mean_s"), ".4f"),
            _fmt(f.get("delay_std_s"), ".4f"),
        ]
        for f in flows[:SHOWN_FLOWS]
    ]
    out = [_table(header, rows)]
    if len(flows) > SHOWN_FLOWS:
        more = len(flows) - SHOWN_FLOWS
        out.append(f"... and {more:,} more flow{'s' if more > 1 else ''} (--json lists them all)")
    if any(not f.get("completed", True) for f in flows):
        out.append("* did not complete: time so far")
    return out


def _fairness_table(summary: dict[str, Any], unit: str, scale: float, spec: str) -> list[str]:
    """Per group and over all flows: Jain's fairness index, throughputs and shares (a run
    of several flows; absent for one)."""
    sets = [(str(name), g) for name, g in (summary.get("groups") or {}).items()]
    if summary.get("fairness"):
        sets.append(("all flows", summary["fairness"]))
    if not sets:
        return []
    header = [
        "group",
        "flows",
        "completed",
        "Jain's index",
        f"mean ({unit})",
        f"min ({unit})",
        f"max ({unit})",
        "share min",
        "share max",
    ]
    rows = [
        [
            name + (" (background)" if g.get("background") and name != "background" else ""),
            _fmt(g.get("flows"), "d"),
            _fmt(g.get("completed"), "d"),
            _fmt(g.get("jain_index"), ".4f"),
            *(
                _fmt(g.get(f"throughput_bps_{k}", 0.0) / scale, spec)
                for k in ("mean", "min", "max")
            ),
            _fmt(g.get("share_min"), ".4f"),
            _fmt(g.get("share_max"), ".4f"),
        ]
        for name, g in sets
    ]
    title = "fairness (Jain's index over the flows' throughputs, 1 = equal shares):"
    return ["", title, _table(header, rows)]


def format_summary(summary: dict[str, Any]) -> str:
    """The human-readable summary that ``lastmile run`` prints (units in the headers)."""
    engine = summary.get("engine", {})
    flows: list[dict[str, Any]] = summary.get("flows", [])
    unit, scale, spec = _throughput_unit(flows)
    out = [
        f"{summary.get('name')} (seed {summary.get('seed')}): "
        f"{engine.get('stop_reason', '?')} at {_fmt(engine.get('sim_time_s'), '.3f')} s "
        f"simulated; {_fmt(engine.get('events'), ',')} events in "
        f"{_fmt(engine.get('wall_s'), '.3f')} s",
        "",
    ]
    out += _flows_table(flows, unit, scale, spec)
    out += _fairness_table(summary, unit, scale, spec)
    out += format_path_sections(summary)
    out += _energy_lines(summary.get("energy"))
    return "\n".join(out)


def format_path_sections(summary: dict[str, Any]) -> list[str]:
    """The summary's lines about the path: the wireless link, the cells, the base
    station's agent and the mobiles."""
    out: list[str] = []
    wireless = summary.get("wireless")
    if wireless:
        sent = wireless.get("frames_sent", 0)
        lost = wireless.get("frames_lost", 0)
        share = f" ({100.0 * lost / sent:.1f} %)" if sent else ""
        out += [
            "",
            f"wireless link {wireless.get('link')!r}: {sent} frames sent, {lost} lost{share}; "
            f"goodput_wireless {_fmt(wireless.get('goodput_wireless'), '.3f')} (ratio), "
            f"goodput_bytes {_fmt(wireless.get('goodput_bytes'), '.3f')} (ratio); "
            f"redundant transmissions {wireless.get('redundant_tx', 0)}",
        ]
    for cell in summary.get("cells") or []:
        busy = cell.get("airtime_busy_fraction")
        line = (
            f"cell {cell.get('name')!r} ({cell.get('mac')}, link {cell.get('link')}): "
            f"airtime busy {_fmt(100.0 * busy if busy is not None else None, '.1f')} %, "
            f"collisions {cell.get('collisions', 0)}, "
            f"MAC retries {cell.get('mac_retries', 0)}, MAC drops {cell.get('mac_drops', 0)}, "
            f"control frames {cell.get('control_frames_sent', 0)}"
        )
        if cell.get("link") == "tulip":
            line += (
                f"; TULIP retransmissions {cell.get('link_retransmissions', 0)}, "
                f"LACKs {cell.get('lacks_sent', 0)} ({cell.get('lacks_lost', 0)} lost)"
            )
        out.append(line)
    agent = summary.get("agent")
    if agent:
        line = (
            f"agent {agent.get('kind')!r}: local retransmissions "
            f"{agent.get('local_retransmissions', 0)}, suppressed dupacks "
            f"{agent.get('suppressed_dupacks', 0)}, "
            f"timer expiries {agent.get('timer_expiries', 0)}, "
            f"occupancy max {agent.get('occupancy_max_bytes', 0)} B"
        )
        lle = agent.get("lle")
        if isinstance(lle, dict):
            line += (
                f"; ACKs generated {lle.get('acks_generated', 0)}, suppressed "
                f"{lle.get('acks_suppressed', 0)}, TCP ACK frames on air "
                f"{lle.get('tcp_ack_frames_on_air', 0)}"
            )
        out.append(line)
    for m in summary.get("mobiles") or []:
        out.append(
            f"mobile {m.get('node')!r}: {m.get('handoffs', 0)} handoffs, out of reach "
            f"{_fmt(m.get('outage_s'), '.3f')} s, {m.get('handoff_drops', 0)} packets lost to "
            f"handoffs ({m.get('handoff_data_drops', 0)} with data)"
        )
    return out


def _energy_lines(energy: Any) -> list[str]:
    """The summary's `energy` section: the profile's powers, then one row per radio node."""
    if not isinstance(energy, dict):
        return []
    per_mb = energy.get("joules_per_mb")
    lines = [
        "",
        f"energy ({energy.get('profile')} profile: transmit {energy.get('transmit_w')} W, "
        f"receive {energy.get('receive_w')} W, idle {energy.get('idle_w')} W, "
        f"sleep {energy.get('sleep_w')} W): total {_fmt(energy.get('total_j'), '.3f')} J, "
        f"{_fmt(per_mb, '.3f')} J per MB delivered",
    ]
    header = ["node", "tx (s)", "rx (s)", "idle (s)", "sleep (s)", "total (J)", "J/MB"]
    nodes = energy.get("nodes") or {}
    rows = [
        [
            str(name),
            _fmt(n.get("transmit_s"), ".3f"),
            _fmt(n.get("receive_s"), ".3f"),
            _fmt(n.get("idle_s"), ".3f"),
            _fmt(n.get("sleep_s"), ".3f"),
            _fmt(n.get("total_j"), ".3f"),
            _fmt(n.get("joules_per_mb"), ".3f"),
        ]
        for name, n in nodes.items()
    ]
    lines.append(_table(header, rows))
    return lines


def _print_result(result: RunResult, as_json: bool) -> None:
    if as_json:
        sys.stdout.write(result.to_json() + "\n")
    else:
        sys.stdout.write(format_summary(result.summary) + "\n")


def _max_events(text: str | None) -> int | None:
    """``--max-events``: a whole number of events, written ``1000000`` or ``1e6``."""
    if text is None:
        return None
    try:
        value = float(text.replace("_", ""))
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 1 or not value.is_integer() or value >= 2**64:
        raise _BadInput(f"--max-events {text}: expected a whole number of events, e.g. 1e9")
    return int(value)


def _max_wall(text: str | None) -> float | None:
    """``--max-wall``: a time with its unit (``30s``, ``5min``) or a number of seconds."""
    if text is None:
        return None
    from lastmile._units import parse_quantity

    quantity = parse_quantity(text)
    try:
        seconds = quantity[0] if quantity is not None and quantity[1] == "s" else float(text)
    except ValueError:
        seconds = math.nan
    if not math.isfinite(seconds) or seconds <= 0:
        raise _BadInput(f"--max-wall {text}: expected a time, e.g. 30s, 5min or 90")
    return seconds


def out_dir_argument(text: str | None) -> Path | None:
    """``--out DIR`` checked before anything runs: an empty name, a file or a folder that
    cannot be written is a one-line error (exit status 2)."""
    if text is None:
        return None
    if not text.strip():
        raise _BadInput("--out '': expected a directory")
    return check_out_dir(text, "--out")


class _Terminated(KeyboardInterrupt):
    """SIGTERM during a run: stops it as Ctrl-C does (the core's check sees a
    KeyboardInterrupt)."""


class _SigtermAsInterrupt:
    """While a run goes on (``with``), SIGTERM stops it cleanly, as Ctrl-C does;
    `terminated` says it came. Off the main thread nothing changes. (A class rather than
    a `contextlib.contextmanager`, and `_signal` rather than its `signal` wrapper, whose
    import builds enums of every signal: each costs a few million instructions of every
    start-up.)"""

    def __init__(self) -> None:
        self.terminated, self.installed = False, False
        self.previous: Any = None

    def _handler(self, _signum: int, _frame: object) -> None:
        self.terminated = True
        raise _Terminated

    def __enter__(self) -> _SigtermAsInterrupt:
        try:
            self.previous = _signal.signal(_signal.SIGTERM, self._handler)
            self.installed = True
        except ValueError:  # not the main thread
            pass
        return self

    def __exit__(self, *_exc: object) -> None:
        if self.installed:
            _signal.signal(_signal.SIGTERM, self.previous)


def _command(args: argparse.Namespace, seed: int) -> str:
    """The command line as typed, with the run's seed made explicit."""
    argv = list(getattr(args, "argv", []) or [])
    if args.seed is None:
        argv += ["--seed", str(seed)]
    return shlex.join(["lastmile", *argv])


def _stall_warnings(result: RunResult) -> None:
    """One line on stderr per stalled flow, saying whether the stall is the scenario's own
    back-off (its timeouts can span it) or a lockup (worded by the core, as `lastmile-run`
    words it)."""
    for f in result.summary.get("flows", []):
        if not f.get("stalled"):
            continue
        warning = _core.stall_warning(
            name=str(f.get("name")),
            longest_stall_s=float(f.get("longest_stall_s") or 0.0),
            stall_threshold_s=float(f.get("stall_threshold_s") or 0.0),
            last_delivery_s=f.get("last_delivery_s"),
            stall_cause=f.get("stall_cause"),
            tcp_timeouts=int(f.get("tcp_timeouts") or 0),
            tcp_persist_probes=int(f.get("tcp_persist_probes") or 0),
        )
        print(f"lastmile: warning: {warning}", file=sys.stderr)


def _cmd_run(args: argparse.Namespace) -> int:
    path = _scenario_file(args)
    seed = cli_view.seed_argument(args.seed)
    out_dir = out_dir_argument(args.out)
    max_events, max_wall = _max_events(args.max_events), _max_wall(args.max_wall)
    scenario: Scenario | Path | str = path
    wants_files = bool(args.trace or args.pcap)
    if wants_files and out_dir is None:
        # The name is an identifier (the core refuses separators and leading dots), so
        # this stays inside ./out.
        from pathlib import Path

        loaded: Scenario = _explained(args.overrides, path, lambda: load(path, args.overrides))
        scenario = loaded
        out_dir = out_dir_argument(str(Path("out") / loaded.name))
    progress = RunProgress(sys.stderr, budget=event_budget())
    status, budget_note = EXIT_OK, ""
    with _SigtermAsInterrupt() as sigterm:
        try:
            result = _explained(
                args.overrides,
                path,
                lambda: run(
                    scenario,
                    seed=seed,
                    overrides=None if isinstance(scenario, Scenario) else args.overrides,
                    traces=args.trace,
                    pcap=args.pcap,
                    out_dir=out_dir if wants_files else None,
                    progress=progress,
                    max_events=max_events,
                    max_wall_s=max_wall,
                ),
            )
        except RunInterrupted as stopped:
            result = stopped.result
            status = EXIT_TERMINATED if sigterm.terminated else EXIT_INTERRUPTED
        except BudgetExceeded as over:
            result = over.result
            status = EXIT_BUDGET
            budget_note = str(over)
    progress.close()
    result.summary["command"] = _command(args, result.seed)
    _print_result(result, args.json)
    if status in (EXIT_INTERRUPTED, EXIT_TERMINATED):
        print(
            f"lastmile: {'terminated' if status == EXIT_TERMINATED else 'interrupted'}: the "
            "summary covers the run so far "
            f"({result.engine.get('sim_time_s', 0):.4g} s simulated)",
            file=sys.stderr,
        )
    elif status == EXIT_BUDGET:
        print(
            f"lastmile: stopped: {budget_note}; the summary covers the run so far",
            file=sys.stderr,
        )
    else:
        _stall_warnings(result)
    if out_dir is not None:
        written = run_dir.write_run_dir(result, out_dir, args.trace)
        written += [out_dir / f"{link}.pcapng" for link in dict.fromkeys(args.pcap)]
        for w in written:
            print(f"wrote {w}", file=sys.stderr)
        if not wants_files:
            print(
                f"note: --out without --trace or --pcap wrote no traces or captures, only the "
                f"summary; add e.g. --trace {' '.join(_core.trace_names())} or --pcap LINK",
                file=sys.stderr,
            )
    return status


def _cmd_validate(args: argparse.Namespace) -> int:
    from pathlib import Path

    path = Path(args.file)
    instead = cli_hints.example_instead_of_file(args.file)
    if instead is not None:
        raise _BadInput(instead)
    out_dir = out_dir_argument(args.out)
    # Everything `run` does before the first event: builds the world, runs nothing.
    found = _explained(
        args.overrides, path, lambda: validate(path, args.overrides, out_dir=out_dir)
    )
    print(f"ok: {found.describe()}")
    warning = budget_warning(found.estimate, event_budget())
    if warning is not None:
        print(warning, file=sys.stderr)
    return EXIT_OK


def _cmd_examples(args: argparse.Namespace) -> int:
    from lastmile._examples import example_path, examples

    if args.show is not None:
        try:
            path = example_path(args.show)
        except KeyError as e:
            raise _BadInput(str(e.args[0])) from None
        sys.stdout.write(path.read_text(encoding="utf-8"))
        return EXIT_OK
    found = examples()
    width = max((len(n) for n in found), default=0)
    for name, example in found.items():
        print(f"{name.ljust(width)}  {example.description}")
        print(f"{''.ljust(width)}  {example.path}")
    print(
        "\nrun one with `lastmile run --example NAME`; start your own from "
        "`lastmile examples --show NAME > my.toml`"
    )
    return EXIT_OK


def _cmd_schema(args: argparse.Namespace) -> int:
    if args.markdown:
        from lastmile.scenario_reference import markdown

        sys.stdout.write(markdown())
        return EXIT_OK
    sys.stdout.write(_core.schema() + "\n")
    return EXIT_OK


_COMMANDS = {
    "run": _cmd_run,
    "validate": _cmd_validate,
    "examples": _cmd_examples,
    "schema": _cmd_schema,
    **cli_view.COMMANDS,
    **cli_sweep.COMMANDS,
    **cli_reproduce.COMMANDS,
    **cli_emulate.COMMANDS,
}


#: The longest error line printed (the core bounds its own; this guards the rest).
_ERROR_MAX = 2000


def _error(message: str) -> None:
    # One line, whatever the message holds.
    line = " ".join(message.split())
    if len(line) > _ERROR_MAX:
        line = line[: _ERROR_MAX - 1] + "…"
    print(f"lastmile: error: {line}", file=sys.stderr)


class _Arguments:
    """The namespace argparse gives, for a command line `_simple_run` reads itself."""

    def __init__(self, **values: Any) -> None:
        self.__dict__.update(values)

    def __contains__(self, name: str) -> bool:
        return name in self.__dict__


#: The options of ``run`` that take one value, by their destination; `_simple_run` reads
#: them as argparse does ("overrides" is ``--set``, which appends).
_RUN_VALUES = {
    "--example": "example",
    "--seed": "seed",
    "--set": "overrides",
    "--out": "out",
    "--max-events": "max_events",
    "--max-wall": "max_wall",
}


def _simple_run(argv: Sequence[str]) -> Any:
    """The arguments of a simple ``run`` command line, as the argparse parser reads them,
    without importing argparse (milliseconds of each start-up): at most one scenario file,
    ``--json``, and `_RUN_VALUES` options each followed by a value that does not start
    with ``-``. None for anything else (help, traces, captures, an abbreviated or unknown
    option, ``--opt=value``, a second scenario...): argparse reads those, with its errors."""
    if not argv or argv[0] != "run":
        return None
    values: dict[str, Any] = {
        "command": "run",
        "scenario": None,
        "example": None,
        "seed": None,
        "overrides": [],
        "json": False,
        "trace": [],
        "pcap": [],
        "out": None,
        "max_events": None,
        "max_wall": None,
    }
    words = iter(argv[1:])
    for word in words:
        if word == "--json":
            values["json"] = True
        elif word in _RUN_VALUES:
            value = next(words, None)
            if value is None or value.startswith("-"):
                return None
            if word == "--set":
                values["overrides"].append(value)
            else:
                values[_RUN_VALUES[word]] = value
        elif word.startswith("-") or values["scenario"] is not None:
            return None
        else:
            values["scenario"] = word
    return _Arguments(**values)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI with `argv` (default: ``sys.argv[1:]``); return the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = _simple_run(argv) or _parser(argv).parse_args(argv)
    args.argv = argv
    try:
        return _COMMANDS[args.command](args)
    except SimulationError as e:
        _error(str(e))
        invalid = getattr(e, "kind", "") == "invalid"
        return EXIT_BAD_INPUT if invalid else EXIT_RUN_FAILED
    except (LastmileError, _BadInput) as e:
        _error(str(e))
        return EXIT_BAD_INPUT
    except OSError as e:
        _error(f"{e.filename or ''}: {e.strerror or e}" if e.filename else str(e))
        return EXIT_RUN_FAILED
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED


def entry() -> None:
    """Console-script entry point."""
    try:
        status = main()
        sys.stdout.flush()
    except BrokenPipeError:
        # Output piped into e.g. `head`: exit quietly, as Unix tools do.
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        status = EXIT_RUN_FAILED
    sys.exit(status)


if __name__ == "__main__":
    entry()
