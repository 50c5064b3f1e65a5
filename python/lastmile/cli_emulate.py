"""The ``lastmile emulate`` subcommand (docs/emulation.md).

``lastmile emulate SCENARIO [--traffic bulk:SIZE] [--cc CC] [--exec-fh CMD] [--exec-mh
CMD] [--exec NODE=CMD] [--sysctl KEY=VALUE] [--duration SECONDS] [--pcap LINK] [--out DIR]
[--json]`` runs the scenario in real time between real hosts in network namespaces;
``lastmile emulate --clean`` removes what a killed run left behind.

Exit status: 0 the run ended with its traffic and kept up with the wall clock; 1 it
failed (a transfer that did not finish or whose bytes differ, a loop error); 2 bad input
or a machine that cannot emulate (not root, no /dev/net/tun: one line saying which); 3
the run finished but did not keep up (99th-percentile lag over 1 ms: the numbers may not
be trusted); 130 interrupted (the summary so far is printed).
"""

from __future__ import annotations

import sys
from collections.abc import Callable

# `typing` only for the type checker: importing it costs a few ms of every start-up.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from pathlib import Path
    from typing import Any

__all__ = ["COMMANDS", "cmd_emulate", "register"]

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_BAD_INPUT = 2
EXIT_LAGGED = 3
EXIT_INTERRUPTED = 130

EXIT_STATUSES = f"""exit status:
  {EXIT_OK}    the traffic ended and the loop kept up with the wall clock
  {EXIT_FAILED}    a transfer failed (did not finish, or the bytes differ) or the loop failed
  {EXIT_BAD_INPUT}    bad input, or this machine cannot emulate (needs root, /dev/net/tun, ip)
  {EXIT_LAGGED}    the run finished but the loop fell behind (p99 lag > 1 ms)
  {EXIT_INTERRUPTED}  interrupted (Ctrl-C, SIGTERM): the summary covers the run so far"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``emulate`` to a ``lastmile`` subparsers object."""
    import argparse
    from pathlib import Path

    p = subparsers.add_parser(
        "emulate",
        help="run a scenario in real time with real Linux hosts at its flow endpoints",
        description="Each endpoint node of the scenario's flows becomes a network namespace "
        "with a TUN device and the node's address; the simulated topology (links, MAC, "
        "link layer, base-station agent) carries their real packets in real time. Needs "
        "root and /dev/net/tun.",
        epilog=EXIT_STATUSES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("scenario", nargs="?", metavar="SCENARIO", help="a .toml/.yaml/.json file")
    p.add_argument("--example", metavar="NAME", help="emulate a built-in example instead")
    p.add_argument(
        "--clean",
        action="store_true",
        help="remove the namespaces (and their processes) of runs that were killed",
    )
    p.add_argument(
        "--traffic",
        metavar="bulk:SIZE",
        help="the built-in bulk transfer over each flow, e.g. bulk:20MB (default: each "
        "flow's own bulk size, unless programs are given)",
    )
    p.add_argument(
        "--cc",
        metavar="CC",
        help="the kernel's congestion control for the bulk sockets "
        "(see /proc/sys/net/ipv4/tcp_available_congestion_control)",
    )
    p.add_argument("--exec-fh", metavar="CMD", help="run CMD (a shell command) in fh's namespace")
    p.add_argument("--exec-mh", metavar="CMD", help="run CMD in mh's namespace")
    p.add_argument(
        "--exec",
        dest="exec_any",
        action="append",
        default=[],
        metavar="NODE=CMD",
        help="run CMD in NODE's namespace (repeatable; programs start in order, 0.5 s "
        "apart, fh's before mh's; the run ends when the last one exits)",
    )
    p.add_argument(
        "--sysctl",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="set a per-namespace net.ipv4.tcp_* sysctl in every namespace "
        "(e.g. net.ipv4.tcp_sack=0)",
    )
    p.add_argument(
        "--duration",
        type=float,
        metavar="SECONDS",
        help="end the run after this long (default: the scenario's stop_time)",
    )
    p.add_argument(
        "--no-realtime",
        dest="realtime",
        action="store_false",
        help="do not ask for real-time priority (SCHED_FIFO) for the emulation loop",
    )
    p.add_argument(
        "--no-pin",
        dest="pin",
        action="store_false",
        help="do not bind the emulation loop to a CPU of its own (by default it takes the "
        "last CPU and the run's programs the others)",
    )
    p.add_argument("--seed", type=int, metavar="N", help="replace the scenario's seed")
    p.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="change a scenario field, as for `lastmile run`",
    )
    p.add_argument(
        "--pcap",
        action="extend",
        nargs="+",
        default=[],
        metavar="LINK",
        help="capture a simulated link's frames, real payloads included, into DIR/LINK.pcapng",
    )
    p.add_argument("--out", metavar="DIR", type=Path, help="where captures and summary go")
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")


def _show(key: str, value: object) -> str:
    return f"{key} {value:.4g}" if isinstance(value, float) else f"{key} {value}"


def _print_text(result: Any) -> None:
    from lastmile.cli import format_path_sections

    print(f"stop reason: {result.stop_reason}")
    for t in result.transfers:
        if "error" in t:
            print(f"transfer {t['src']} -> {t['dst']}: FAILED ({t['error']})")
            continue
        info = t["tcp_info"]
        print(
            f"transfer {t['src']} -> {t['dst']} ({t['cc']}): {t['bytes']} bytes, "
            f"goodput {t['goodput_bps'] / 1e6:.3f} Mbps, completion {t['completion_s']:.3f} s, "
            f"retransmitted {info.get('total_retrans', 0)} segments, "
            f"verified {'yes' if t['verified'] else 'NO'}"
        )
    for prog in result.programs:
        if prog["command"].startswith("bulk"):
            continue
        print(f"program on {prog['node']}: {prog['command']} -> exit {prog['returncode']}")
    print()
    for link in result.summary.get("links") or []:
        print(
            f"link {link['name']!r} {link['from']} -> {link['to']}: "
            f"{link['frames_sent']} frames sent, {link['frames_lost']} lost, "
            f"{link['queue_drops']} queue drops (queue max {link['max_queue_packets']} packets)"
        )
    for line in format_path_sections(result.summary):
        if line:
            print(line)
    for port in result.ports["ports"]:
        dropped = {k: v for k, v in port.items() if k.startswith(("dropped", "lost")) and v}
        print(
            f"port {port['node']} ({port['address']}): in {port['packets_in']} datagrams, "
            f"out {port['packets_out']}" + (f"; {dropped}" if dropped else "")
        )
    timing = result.timing
    lag = timing["lag"]
    print(
        f"timing: {lag['events']} events, {lag['late_events']} late by > 1 ms "
        f"({_stalls(lag['stalls'])}), p99 {lag['p99_s'] * 1e3:.3f} ms, "
        f"max {lag['max_s'] * 1e3:.3f} ms; loop CPU {timing['cpu_s']:.3f} s "
        f"(user {timing['cpu_user_s']:.3f}, system {timing['cpu_system_s']:.3f}; "
        f"{timing['cpu_per_datagram_s'] * 1e6:.1f} µs per datagram)"
    )


def _stalls(n: int) -> str:
    return f"{n} stall" if n == 1 else f"{n} stalls"


def _lag_warning(result: Any) -> str | None:
    lag = result.timing["lag"]
    if lag["late_events"] == 0:
        return None
    share = 100.0 * lag["late_events"] / max(lag["events"], 1)
    what = (
        "could not keep up with the wall clock"
        if not lag["kept_up"]
        else "fell behind the wall clock now and then"
    )
    worst = ", ".join(
        f"{w['lag_s'] * 1e3:.1f} ms at {w['at_s']:.3f} s" for w in lag["worst_stalls"][:3]
    )
    return (
        f"lastmile: warning: the emulation {what}: {lag['late_events']} of {lag['events']} "
        f"events ({share:.2f} %) ran more than 1 ms late, in {_stalls(lag['stalls'])} "
        f"(worst: {worst}); p99 {lag['p99_s'] * 1e3:.3f} ms"
    )


def cmd_emulate(args: argparse.Namespace) -> int:
    import json
    from pathlib import Path

    from lastmile._examples import example_path
    from lastmile.cli_hints import BadInput
    from lastmile.emulate import EmulationUnavailable, clean_stale, emulate, missing_requirements

    if args.clean:
        missing = missing_requirements()
        if missing is not None:
            raise EmulationUnavailable(missing)
        removed = clean_stale()
        for name in removed:
            print(f"removed {name}", file=sys.stderr)
        print(f"lastmile: {len(removed)} namespace(s) of killed runs removed", file=sys.stderr)
        return EXIT_OK
    if (args.scenario is None) == (args.example is None):
        raise BadInput("give a SCENARIO file or --example NAME (or --clean)")
    if args.example is not None:
        try:
            path = example_path(args.example)
        except KeyError as e:
            raise BadInput(str(e.args[0])) from None
    else:
        path = Path(args.scenario)
    programs: list[tuple[str, str]] = []
    if args.exec_fh:
        programs.append(("fh", args.exec_fh))
    for item in args.exec_any:
        node, sep, command = item.partition("=")
        if not sep or not node or not command:
            raise BadInput(f'--exec "{item}": expected NODE=CMD')
        programs.append((node, command))
    if args.exec_mh:
        programs.append(("mh", args.exec_mh))
    out_dir: Path | None = args.out
    if args.pcap and out_dir is None:
        out_dir = Path("out") / "emulate"
    result = emulate(
        path,
        traffic=args.traffic,
        cc=args.cc,
        exec_programs=programs,
        sysctls=args.sysctl,
        seed=args.seed,
        overrides=args.overrides,
        pcap=args.pcap,
        out_dir=out_dir,
        duration_s=args.duration,
        realtime=args.realtime,
        pin=args.pin,
        program_output=sys.stderr if args.json else None,
    )
    if args.json:
        print(result.to_json())
    else:
        _print_text(result)
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / "emulation.json").write_text(json.dumps(result.to_dict(), indent=2) + "\n")
        print(f"wrote {out_dir / 'emulation.json'}", file=sys.stderr)
        for link in dict.fromkeys(args.pcap):
            print(f"wrote {out_dir / f'{link}.pcapng'}", file=sys.stderr)
    for w in result.warnings:
        print(f"lastmile: warning: {w}", file=sys.stderr)
    warning = _lag_warning(result)
    if warning:
        print(warning, file=sys.stderr)
    if result.stop_reason == "interrupted":
        print("lastmile: interrupted: the summary covers the run so far", file=sys.stderr)
        return EXIT_INTERRUPTED
    failed = [t for t in result.transfers if "error" in t or not t.get("verified")]
    if failed:
        for t in failed:
            why = t.get("error") or "the bytes received differ from the bytes sent"
            print(f"lastmile: error: transfer {t['src']} -> {t['dst']}: {why}", file=sys.stderr)
        return EXIT_FAILED
    if result.stop_reason == "stop_time":
        print(
            "lastmile: warning: the run reached its duration before its traffic ended",
            file=sys.stderr,
        )
    if not result.kept_up:
        return EXIT_LAGGED
    return EXIT_OK


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {"emulate": cmd_emulate}
