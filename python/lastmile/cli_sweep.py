"""The ``lastmile sweep`` and ``lastmile results`` subcommands.

``lastmile sweep FILE [--jobs N | --dask ADDRESS|local:N] [--store PATH] [--dry-run]
[--retry-failed]`` runs a campaign's missing runs, reporting progress on stderr, then
prints the campaign's summary table. ``lastmile results STORE [--campaign NAME]
[--group-by AXES] [--metric NAME ...] [--runs|--flows] [--csv|--parquet OUT]`` prints (or
exports) per-point means with 95 % confidence intervals, or the runs (or flows) themselves;
``--plot METRIC --x AXIS [--out FILE]`` draws one metric against one axis instead.

`register(subparsers)` adds both to the ``lastmile`` parser; each sets ``handler`` (also
listed in `COMMANDS`), which returns the exit status: 0 done, 1 some runs failed (or an
I/O error), 2 bad input (nothing ran), 130 interrupted (what finished is stored).
``python -m lastmile.cli_sweep sweep ...`` runs them on their own. Registering imports
nothing beyond argparse: the sweep machinery loads when a handler runs.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence

# `typing` only for the type checker: importing it costs a few ms of every start-up.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

    import pandas as pd

    from lastmile.sweep.campaign import SweepOutcome

__all__ = ["COMMANDS", "cmd_results", "cmd_sweep", "main", "register"]

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``sweep`` and ``results`` to a ``lastmile`` subparsers object."""
    from pathlib import Path

    p = subparsers.add_parser(
        "sweep",
        help="run a parameter campaign (grid, zip, variants, seeds) into a results store",
        description="Run every missing run of the campaign in FILE and store each one as "
        "it finishes; run it again to resume after a crash.",
    )
    p.add_argument("file", metavar="FILE", type=Path, help="a sweep file (.toml)")
    where = p.add_mutually_exclusive_group()
    where.add_argument(
        "--jobs", "-j", type=int, metavar="N", help="local worker processes (default: all cores)"
    )
    where.add_argument(
        "--dask",
        metavar="ADDRESS|local:N",
        help="run on the Dask scheduler at ADDRESS, or on a new local cluster of N workers",
    )
    p.add_argument(
        "--store",
        type=Path,
        metavar="PATH",
        help="the DuckDB results file (default: <sweep file's dir>/<campaign>.duckdb)",
    )
    p.add_argument(
        "--dry-run", action="store_true", help="check every point and count what would run"
    )
    p.add_argument(
        "--retry-failed", action="store_true", help="run again the runs stored as failed"
    )
    p.add_argument("--chunk-size", type=int, metavar="N", help="runs per task (default: auto)")
    p.set_defaults(handler=cmd_sweep)

    r = subparsers.add_parser(
        "results",
        help="summarise a results store: mean and 95%% CI per point, or every run",
        description="Per point (variant and axes), the mean and 95 % confidence interval "
        "(Student t over seeds) of each metric.",
    )
    r.add_argument("store", metavar="STORE", type=Path, help="a results store (.duckdb)")
    r.add_argument("--campaign", metavar="NAME", help="only this campaign")
    r.add_argument(
        "--group-by",
        metavar="AXES",
        help="comma-separated columns that define a point (default: variant and every axis)",
    )
    r.add_argument(
        "--metric",
        action="extend",
        nargs="+",
        metavar="NAME",
        help="metric columns (default: throughput_bps, tcp_timeouts, wireless_goodput_wireless, "
        "and fairness_jain_index for runs of several flows)",
    )
    r.add_argument("--runs", action="store_true", help="one row per run instead")
    r.add_argument("--flows", action="store_true", help="one row per flow of every run instead")
    r.add_argument(
        "--code-version",
        metavar="VERSION",
        help="only the runs of this code version (default: all, grouped apart)",
    )
    out = r.add_mutually_exclusive_group()
    out.add_argument("--csv", type=Path, metavar="OUT", help="write the table as CSV")
    out.add_argument("--parquet", type=Path, metavar="OUT", help="write the table as Parquet")
    out.add_argument(
        "--plot",
        metavar="METRIC",
        help="draw METRIC's mean ± 95%% CI against --x AXIS, one line per variant",
    )
    r.add_argument("--x", metavar="AXIS", help="the x axis of --plot (an axis of the campaign)")
    r.add_argument(
        "--out",
        type=Path,
        metavar="FILE",
        help="where --plot draws (.png, .svg or .pdf; default out/<store>-<METRIC>-vs-<AXIS>.png)",
    )
    r.set_defaults(handler=cmd_results)


def _error(message: str) -> None:
    print(f"lastmile: error: {' '.join(message.split())}", file=sys.stderr)


def format_table(frame: pd.DataFrame) -> str:
    """An aligned text table of a `results` frame: ``mean ± half-width`` per metric, each
    metric in one unit (named in its header) and one precision for every row."""
    from lastmile._units import column_format
    from lastmile.plot import is_parsed_axis

    means = [c.removesuffix("_mean") for c in frame.columns if c.endswith("_mean")]
    plain = [
        c
        for c in frame.columns
        if not c.endswith(("_mean", "_ci95")) and not is_parsed_axis(frame, c)
    ]
    formats = {m: column_format(m, frame[m + "_mean"]) for m in means}
    header = [*plain, *(formats[m].header(m) for m in means)]

    def cell(m: str, row: dict[str, object]) -> str:
        mean, ci = formats[m](row[m + "_mean"]), formats[m](row[m + "_ci95"])
        return mean if ci == "-" else f"{mean} ± {ci}"

    rows = [
        [*(str(row[c]) for c in plain), *(cell(m, row) for m in means)]
        for row in frame.to_dict("records")
    ]
    widths = [max(len(cell) for cell in column) for column in zip(header, *rows, strict=True)]
    lines = [
        "  ".join(
            cell.ljust(w) if i < len(plain) else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(line, widths, strict=True))
        ).rstrip()
        for line in (header, *rows)
    ]
    return "\n".join(lines)


def _plan(outcome: SweepOutcome) -> str:
    spec = outcome.spec
    axes = ", ".join(f"{a} ({len(v)})" for a, v in {**spec.grid, **spec.zip}.items())
    lines = [
        f"campaign {outcome.campaign}: {len(outcome.points)} points x {len(spec.seeds)} seeds"
        f" = {outcome.total} runs",
        f"  variants: {', '.join(spec.variants)}",
        f"  axes: {axes or 'none'}",
        f"  store: {outcome.store} (code version {outcome.code_version})",
        f"  stored: {outcome.stored_before}, to run: {outcome.total - outcome.stored_before}",
    ]
    return "\n".join(lines)


def _sweep(args: argparse.Namespace) -> int:
    from lastmile.sweep import results
    from lastmile.sweep.campaign import run_campaign
    from lastmile.sweep.executors import connect_dask
    from lastmile.sweep.spec import SweepError

    if args.jobs is not None and args.jobs < 1:
        raise SweepError(f"--jobs {args.jobs}: expected at least 1", file="lastmile sweep")
    from contextlib import ExitStack

    with ExitStack() as stack:
        client = connect_dask(args.dask, stack) if args.dask else None
        outcome = run_campaign(
            args.file,
            jobs=args.jobs,
            client=client,
            store=args.store,
            retry_failed=args.retry_failed,
            dry_run=args.dry_run,
            chunk_size=args.chunk_size,
        )
    if outcome.dry_run:
        print(_plan(outcome))
        return EXIT_OK
    rate = outcome.ran / outcome.elapsed_s if outcome.elapsed_s > 0 else 0.0
    stored = outcome.stored_before + outcome.ran
    print(
        f"campaign {outcome.campaign}: ran {outcome.ran} runs ({outcome.failed} failed) in "
        f"{outcome.elapsed_s:.1f} s ({rate:.1f} runs/s); {stored} of {outcome.total} stored "
        f"in {outcome.store}",
        file=sys.stderr,
    )
    if outcome.interrupted:
        print("interrupted: run the same command again to finish", file=sys.stderr)
        return EXIT_INTERRUPTED
    if stored:
        table = results(outcome.store, campaign=outcome.campaign, code_version=outcome.code_version)
        print(format_table(table))
    if outcome.failed:
        print(
            f"{outcome.failed} runs failed (the first: {outcome.first_error}); see "
            f"`lastmile results {outcome.store} --runs`; --retry-failed runs them again",
            file=sys.stderr,
        )
        return EXIT_FAILED
    return EXIT_OK


def _results(args: argparse.Namespace) -> int:
    from lastmile.sweep import results

    group_by = None
    if args.group_by is not None:
        group_by = [g.strip() for g in args.group_by.split(",") if g.strip()]
    if args.plot is not None:
        return _plot_results(args, group_by)
    if args.x is not None or args.out is not None:
        raise ValueError("--x and --out go with --plot METRIC")
    frame = results(
        args.store,
        campaign=args.campaign,
        group_by=group_by,
        metrics=args.metric,
        runs=args.runs,
        code_version=args.code_version,
        flows=args.flows,
    )
    from lastmile._fresh import write_fresh

    if args.csv is not None:
        write_fresh(args.csv, lambda p: frame.to_csv(p, index=False))
        print(f"wrote {len(frame)} rows to {args.csv}", file=sys.stderr)
    elif args.parquet is not None:
        write_fresh(args.parquet, lambda p: frame.to_parquet(p, index=False))
        print(f"wrote {len(frame)} rows to {args.parquet}", file=sys.stderr)
    elif args.runs or args.flows:
        print(frame.to_string(index=False))
    else:
        print(format_table(frame))
    return EXIT_OK


def _plot_results(args: argparse.Namespace, group_by: list[str] | None) -> int:
    from pathlib import Path

    from lastmile.plot import results_figure, save
    from lastmile.sweep import results

    if args.runs or args.flows:
        raise ValueError("--plot draws means over seeds: leave out --runs and --flows")
    if args.x is None:
        raise ValueError(f"--plot {args.plot} needs --x AXIS: the axis to draw it against")
    frame = results(
        args.store,
        campaign=args.campaign,
        group_by=group_by,
        metrics=[args.plot],
        code_version=args.code_version,
    )
    figure = results_figure(frame, args.plot, args.x)
    out = args.out or Path("out") / f"{args.store.stem}-{args.plot}-vs-{args.x}.png"
    if out.suffix not in (".png", ".svg", ".pdf"):
        raise ValueError(f"--out {out}: expected a .png, .svg or .pdf file")
    out.parent.mkdir(parents=True, exist_ok=True)
    save(figure, out, out.suffix[1:])
    print(f"wrote {out}", file=sys.stderr)
    return EXIT_OK


def _guarded(command: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    """Run `command`, turning errors into one stderr line and an exit status."""
    from lastmile.sweep.executors import ExecutorError, MissingExtraError
    from lastmile.sweep.spec import SweepError
    from lastmile.sweep.store import StoreError

    try:
        status = command(args)
        sys.stdout.flush()
        return status
    except BrokenPipeError:
        # Output piped into e.g. `head`: stop quietly, as Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_FAILED
    except (SweepError, StoreError, ValueError, MissingExtraError) as e:
        _error(str(e))
        return EXIT_BAD_INPUT
    except (OSError, ExecutorError) as e:
        _error(str(e))
        return EXIT_FAILED
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED


def cmd_sweep(args: argparse.Namespace) -> int:
    """``lastmile sweep``: run the campaign, then print its summary table."""
    return _guarded(_sweep, args)


def cmd_results(args: argparse.Namespace) -> int:
    """``lastmile results``: print or export the campaign summary or the runs."""
    return _guarded(_results, args)


#: Subcommand name → handler (each catches its own errors and returns the exit status).
COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "sweep": cmd_sweep,
    "results": cmd_results,
}


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m lastmile.cli_sweep sweep|results ...``; returns the exit status."""
    import argparse

    parser = argparse.ArgumentParser(prog="lastmile")
    register(parser.add_subparsers(dest="command", required=True, metavar="COMMAND"))
    args = parser.parse_args(argv)
    status: int = args.handler(args)
    return status


if __name__ == "__main__":
    sys.exit(main())
