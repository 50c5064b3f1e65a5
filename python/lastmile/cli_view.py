"""The ``lastmile plot`` and ``lastmile report`` subcommands: looking at a run instead of
reading it.

``lastmile plot RUN_DIR`` draws the standard pictures (`lastmile.plot`) from the traces a
``lastmile run --trace ... --out RUN_DIR`` wrote; ``lastmile plot SCENARIO|--example NAME
[--seed N] [--set K=V]`` runs the scenario with the traces the pictures need and writes a
run directory (summary, traces, pictures) to ``--out`` (default ``out/<name>``).

``lastmile report TARGET [--out FILE]`` writes one self-contained HTML page for a run
directory, a sweep results store (``.duckdb``) or a ``lastmile reproduce`` output directory
(`lastmile.report`).

``lastmile plot --from T --to T`` draws only that stretch of simulated time (a long run
otherwise draws solid blobs).

Also here: `add_set` and `add_seed` (the ``--set`` and ``--seed`` options the
scenario-reading commands share). What a run directory holds and how it is written is the
library's (`lastmile.run_dir`), which the report reads without the CLI. Registering imports
only argparse, and importing the module does not (``lastmile run`` parses its simple
command lines without it).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

from lastmile import _core
from lastmile.cli_hints import BadInput, example_instead_of_file, explain_override_error
from lastmile.run_dir import (
    flow_names,
    read_summary,
    run_title,
    write_run_dir,
)

# argparse only for the type checker: ``lastmile run`` may start without it.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from pathlib import Path

__all__ = [
    "COMMANDS",
    "add_seed",
    "add_set",
    "register",
    "seed_argument",
]

EXIT_OK = 0


def add_seed(parser: argparse.ArgumentParser) -> None:
    """``--seed N``, read by `seed_argument` (a one-line error, not argparse's usage)."""
    parser.add_argument("--seed", metavar="N", help="replace the scenario's seed (0 to 2**64-1)")


def seed_argument(text: str | None) -> int | None:
    """The ``--seed`` given, as a number; a one-line error for anything else."""
    if text is None:
        return None
    words = text.strip().replace("_", "")
    if not words.isdigit() or int(words) > 2**64 - 1:
        raise BadInput(
            f"--seed {text}: expected a whole number from 0 to 2**64-1, written in digits"
        )
    return int(words)


def add_set(parser: argparse.ArgumentParser) -> None:
    """``--set KEY=VALUE``: one override per flag, so a scenario file may follow it."""
    parser.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a field, e.g. --set flow.0.tcp.variant=tahoe; one per --set, repeat "
        "it for more; replace a whole table with "
        "--set 'topology.wireless.errors={model=\"per\", per=0.1}'",
    )


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``plot`` and ``report`` to a ``lastmile`` subparsers object."""
    from pathlib import Path

    from lastmile.plot import PLOTS

    p = subparsers.add_parser(
        "plot",
        help="draw a run: sequence/ACK, cwnd, RTT, wireless frames, throughput",
        description="Draw the standard pictures of a run, from a run directory's traces or "
        "by running a scenario with the traces they need.",
    )
    p.add_argument(
        "target", nargs="?", metavar="RUN_DIR|SCENARIO", help="a run directory or scenario file"
    )
    p.add_argument("--example", metavar="NAME", help="run a built-in example instead")
    add_seed(p)
    add_set(p)
    p.add_argument(
        "--only", nargs="+", choices=PLOTS, metavar="PLOT", help=f"some of: {', '.join(PLOTS)}"
    )
    p.add_argument(
        "--format",
        nargs="+",
        default=["png", "svg"],
        choices=["png", "svg", "pdf"],
        help="file formats (default: png svg)",
    )
    p.add_argument(
        "--out", type=Path, metavar="DIR", help="where the pictures go (default: the run dir)"
    )
    p.add_argument(
        "--from",
        dest="time_from",
        metavar="TIME",
        help="draw from this simulated time on (e.g. 100s, 2min; default: the start)",
    )
    p.add_argument(
        "--to",
        dest="time_to",
        metavar="TIME",
        help="draw up to this simulated time (default: the end)",
    )
    r = subparsers.add_parser(
        "report",
        help="one self-contained HTML page for a run, a sweep store or a reproduce output",
        description="Write one HTML page (figures inlined) for a run directory, a sweep "
        "results store (.duckdb) or a `lastmile reproduce` output directory.",
    )
    r.add_argument("target", metavar="TARGET", type=Path, help="run dir, .duckdb, or reproduce dir")
    r.add_argument(
        "--out",
        type=Path,
        metavar="FILE",
        help="the page (default: TARGET/report.html, or STORE.html for a store)",
    )


def _run_for_plot(args: argparse.Namespace, kinds: Sequence[str]) -> Path:
    """Run the scenario with the traces `kinds` need; write and return its run directory."""
    from pathlib import Path

    from lastmile._examples import example_path
    from lastmile._run import run
    from lastmile._scenario import load
    from lastmile.plot import TRACES_FOR

    if args.example is not None:
        try:
            path = example_path(args.example)
        except KeyError as e:
            raise BadInput(str(e.args[0])) from None
    else:
        instead = example_instead_of_file(args.target)
        if instead is not None:
            raise BadInput(instead)
        path = Path(args.target)
    traces = list(dict.fromkeys(t for k in kinds for t in TRACES_FOR[k]))
    try:
        scenario = load(path, args.overrides)
        result = run(scenario, seed=seed_argument(args.seed), traces=traces)
    except _core.ScenarioError as e:
        better = explain_override_error(e, args.overrides, path)
        if better is None:
            raise
        raise BadInput(better) from None
    out_dir = args.out or Path("out") / scenario.name
    import shlex

    result.summary["command"] = shlex.join(["lastmile", *getattr(args, "argv", [])])
    for written in write_run_dir(result, out_dir, traces):
        print(f"wrote {written}", file=sys.stderr)
    return out_dir


def cmd_plot(args: argparse.Namespace) -> int:
    """``lastmile plot``: draw the pictures of a run directory or of a fresh run."""
    from pathlib import Path

    from lastmile.plot import PLOTS, draw, hop_names, receiver_windows, traces_from_dir

    kinds = list(dict.fromkeys(args.only or PLOTS))
    if args.example is not None and args.target is not None:
        raise BadInput("give a RUN_DIR or SCENARIO, or --example NAME, not both")
    if args.example is None and args.target is None:
        raise BadInput(
            "give a run directory (lastmile run --trace ... --out DIR), a SCENARIO "
            "file or --example NAME"
        )
    window = _time_window(args.time_from, args.time_to)
    if args.target is not None and Path(args.target).is_dir():
        if args.seed is not None or args.overrides:
            raise BadInput(f"{args.target} is a run directory: --seed and --set need a scenario")
        run_dir = Path(args.target)
    elif (
        args.target is not None
        and not Path(args.target).suffix
        and example_instead_of_file(args.target) is None
    ):
        raise BadInput(
            f"{args.target}: no such directory (a run directory: lastmile run --trace ... "
            "--out DIR; or a scenario file .toml, .yaml, .json)"
        )
    else:
        run_dir = _run_for_plot(args, kinds)
    summary = read_summary(run_dir)
    made = draw(
        traces_from_dir(run_dir),
        kinds=kinds,
        flow_names=flow_names(summary),
        hops=hop_names(summary),
        rwnd=receiver_windows(summary),
        title=run_title(summary),
        out_dir=args.out or run_dir,
        formats=args.format,
        window=window,
    )
    for path in made.files:
        print(f"wrote {path}", file=sys.stderr)
    for kind, why in made.missing.items():
        print(f"skipped {kind}: {why}", file=sys.stderr)
    if not made.figures:
        raise BadInput(
            f"{run_dir}: no traces to draw; run it with --trace "
            f"{' '.join(_core.trace_names())} --out {run_dir}, or plot a scenario"
        )
    return EXIT_OK


def _time_window(start: str | None, end: str | None) -> tuple[float, float] | None:
    """``--from`` / ``--to`` as (start, end) in seconds, or None for the whole run."""
    if start is None and end is None:
        return None
    from lastmile._units import parse_quantity

    def seconds(text: str | None, option: str, default: float) -> float:
        if text is None:
            return default
        quantity = parse_quantity(text)
        try:
            value = quantity[0] if quantity is not None and quantity[1] == "s" else float(text)
        except ValueError:
            value = float("nan")
        if not value >= 0 or value == float("inf"):
            raise BadInput(f"{option} {text}: expected a simulated time, e.g. 100s or 2min")
        return value

    window = (seconds(start, "--from", 0.0), seconds(end, "--to", float("inf")))
    if window[0] >= window[1]:
        raise BadInput(f"--from {start} --to {end}: the window is empty (--from must be less)")
    return window


def cmd_report(args: argparse.Namespace) -> int:
    """``lastmile report``: one HTML page for a run dir, a sweep store or a reproduction."""
    from lastmile.report import ReportError, build_report
    from lastmile.sweep.store import StoreError

    try:
        page = build_report(args.target, args.out)
    except (ReportError, StoreError) as e:
        raise BadInput(str(e)) from None
    print(f"wrote {page}", file=sys.stderr)
    return EXIT_OK


#: Subcommand name → handler.
COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "plot": cmd_plot,
    "report": cmd_report,
}
