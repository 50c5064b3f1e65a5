"""The ``lastmile reproduce`` subcommand.

``lastmile reproduce`` lists the experiments. ``lastmile reproduce NAME|all [--quick]
[--jobs N | --dask ADDRESS|local:N] [--out DIR] [--docs [DIR]]`` runs one experiment (or
every one) as sweeps into ``DIR/store.duckdb`` and writes ``DIR/NAME/``: the paper's
figures redrawn (PNG and SVG), ``comparison.md``, ``comparison.csv`` and ``comparison.json``,
and ``DIR/index.json``. ``--docs`` also regenerates ``DIR/reproductions.md`` (default
``docs``) with the figures it shows.

Exit status (`EXIT_STATUSES`, also in ``--help``): 0 every claim holds and every run is
sound; 1 some claim fails; 3 the integrity check fails (a mechanism's series stalled where
the paper shows no stall, or a run failed), whatever the claims; 2 bad input; 130
interrupted. The reports are written in every case but 2 and 130. Progress goes to stderr.
Registering imports only argparse.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence

# `typing` only for the type checker: importing it costs a few ms of every start-up.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

    from lastmile.reproduce import Outcome

__all__ = ["COMMANDS", "cmd_reproduce", "main", "register"]

EXIT_OK = 0
EXIT_CLAIM_FAILED = 1
EXIT_BAD_INPUT = 2
EXIT_INTEGRITY_FAILED = 3
EXIT_INTERRUPTED = 130

#: What `lastmile reproduce --help` says about its exit statuses.
EXIT_STATUSES = f"""exit status:
  {EXIT_OK}    every claim holds and every run is sound
  {EXIT_CLAIM_FAILED}    some claim of the paper does not hold in our runs (a finding: the
       reports say why); every run is sound
  {EXIT_BAD_INPUT}    bad input (unknown experiment, bad option)
  {EXIT_INTEGRITY_FAILED}    the integrity check fails: a run of a mechanism's series (TULIP,
       Snoop, WTCP, I-TCP, LLE-TCP) stalled where the paper shows no stall, or a
       run failed; takes precedence over {EXIT_CLAIM_FAILED}
  {EXIT_INTERRUPTED}  interrupted (Ctrl-C); finished runs stay in the store
The reports (comparison.md/.csv/.json, index.json) are written for 0, 1 and 3."""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``reproduce`` to a ``lastmile`` subparsers object."""
    import argparse
    from pathlib import Path

    p = subparsers.add_parser(
        "reproduce",
        help="re-run a seed paper's experiment and compare with its published numbers",
        description="Without NAME: list the experiments. With NAME (or `all`): run it as "
        "sweeps, check every run's integrity, redraw the paper's figures and write "
        "comparison.md/.csv/.json under DIR/NAME and DIR/index.json.",
        epilog=EXIT_STATUSES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("name", nargs="?", metavar="NAME", help="an experiment, or `all`")
    p.add_argument(
        "--quick", action="store_true", help="fewer seeds and points (seconds per experiment)"
    )
    where = p.add_mutually_exclusive_group()
    where.add_argument(
        "--jobs", "-j", type=int, metavar="N", help="local worker processes (default: all cores)"
    )
    where.add_argument(
        "--dask", metavar="ADDRESS|local:N", help="run on a Dask scheduler or local cluster"
    )
    p.add_argument(
        "--out",
        type=Path,
        default=Path("out/reproduce"),
        metavar="DIR",
        help="where the store and each experiment's reports go (default: out/reproduce)",
    )
    p.add_argument(
        "--docs",
        nargs="?",
        const=Path("docs"),
        type=Path,
        metavar="DIR",
        help="also write DIR/reproductions.md and its figures (default DIR: docs)",
    )
    p.set_defaults(handler=cmd_reproduce)


def _list() -> int:
    from lastmile.reproduce import catalogue

    found = catalogue()
    width = max((len(n) for n in found), default=0)
    for name, exp in found.items():
        print(f"{name.ljust(width)}  {exp.title}")
    return EXIT_OK


def _error(message: str) -> None:
    print(f"lastmile: error: {' '.join(message.split())}", file=sys.stderr)


def cmd_reproduce(args: argparse.Namespace) -> int:
    """List the experiments, or run one (or all) and write its reports."""
    if args.name is None:
        if args.docs is not None or args.quick:
            _error("reproduce: give an experiment NAME (or `all`) to run")
            return EXIT_BAD_INPUT
        return _list()
    from lastmile.reproduce import catalogue, reproduce
    from lastmile.reproduce.report import write_docs

    found = catalogue()
    if args.name != "all" and args.name not in found:
        _error(
            f"reproduce: unknown experiment {args.name!r}, expected `all` or one of "
            f"{', '.join(found)}"
        )
        return EXIT_BAD_INPUT
    if args.jobs is not None and args.jobs < 1:
        _error(f"reproduce: --jobs {args.jobs}: expected a positive number")
        return EXIT_BAD_INPUT
    chosen = list(found.values()) if args.name == "all" else [found[args.name]]
    start = time.perf_counter()
    outcomes = []
    try:
        from contextlib import ExitStack

        with ExitStack() as stack:
            client = None
            if args.dask is not None:
                from lastmile.sweep import connect_dask

                client = connect_dask(args.dask, stack)
            for exp in chosen:
                outcomes.append(
                    reproduce(exp, args.out, quick=args.quick, jobs=args.jobs, client=client)
                )
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    total = time.perf_counter() - start
    for o in outcomes:
        _print_outcome(o)
    if args.docs is not None:
        page = write_docs(outcomes, args.docs, total)
        print(f"wrote {page}")
    print(f"total wall time {total:.1f} s", file=sys.stderr)
    if not all(o.integrity_ok for o in outcomes):
        return EXIT_INTEGRITY_FAILED
    return EXIT_OK if all(o.all_hold for o in outcomes) else EXIT_CLAIM_FAILED


def _print_outcome(o: Outcome) -> None:
    """One line per failing claim and unsound series, then the experiment's headline."""
    from lastmile.reproduce.report import headline, headline_text

    for claim in o.context.claims:
        if not claim.holds:
            print(f"claim fails: {o.experiment.name}: {claim.claim} ({claim.detail})")
    for row in o.context.integrity:
        if not row.ok:
            print(
                f"integrity fails: {o.experiment.name}: {row.series}: {row.stalled} stalled, "
                f"{row.failed} failed of {row.runs} runs ({row.where})"
            )
    print(
        f"{o.experiment.name}: {headline_text(headline(o))}; integrity "
        f"{'ok' if o.integrity_ok else 'FAILS'}; {o.out_dir / 'comparison.md'}"
    )


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {"reproduce": cmd_reproduce}


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m lastmile.cli_reproduce reproduce ...``."""
    import argparse

    parser = argparse.ArgumentParser(prog="lastmile")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    handler: Callable[[argparse.Namespace], int] = args.handler
    return handler(args)


if __name__ == "__main__":
    sys.exit(main())
