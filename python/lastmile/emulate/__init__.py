"""Real Linux TCP and real programs through a simulated path, in real time
(``lastmile emulate``; docs/emulation.md).

Every endpoint node of the scenario's flows (``fh`` and ``mh`` of the chain) becomes a
network namespace holding a TUN device with the node's address (10.0.0.x) and routes to
the other endpoints; the scenario's topology runs between them in the Rust core, paced
by the wall clock (`lastmile._core.Emulator`, crate ``lastmile-emu``). What a program in
``fh``'s namespace sends enters the simulation at ``fh``, crosses the wired link, the base
station and its agent, the wireless hop, and comes out in ``mh``'s namespace.

Traffic: the built-in bulk transfer (``traffic="bulk:20MB"``, or each flow's own bulk
size when no traffic and no programs are given), with the kernel's congestion control
``cc`` on its sockets; and/or programs (`exec`: (node, shell command) pairs, started in
order half a second apart; the run ends when the last one exits and the others are then
stopped). The run also ends at `duration_s` (default: the scenario's ``stop_time``), on
Ctrl-C or SIGTERM (the result says "interrupted"), and on an error; the namespaces and
every process in them are removed in every case (`lastmile emulate --clean` after a
SIGKILL).
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from types import FrameType
from typing import IO, Any

from lastmile import _core
from lastmile._errors import LastmileError, SimulationError
from lastmile._scenario import Overrides, Scenario, load
from lastmile._units import parse_quantity
from lastmile.emulate._netns import Namespaces, Port, clean_stale, missing_requirements

__all__ = [
    "EmulationResult",
    "EmulationUnavailable",
    "clean_stale",
    "emulate",
    "missing_requirements",
]

#: The first port the built-in bulk sinks listen on (flow i: BULK_PORT + i).
BULK_PORT = 5001
#: Between two programs' starts, so that a server listens before its client connects.
EXEC_STAGGER_S = 0.5
#: How long stopped programs get between SIGTERM and SIGKILL.
KILL_GRACE_S = 1.0


class EmulationUnavailable(LastmileError):
    """The machine cannot run an emulation (not root, no /dev/net/tun, ...)."""

    __module__ = "lastmile.emulate"


class EmulationError(LastmileError, RuntimeError):
    """An emulation failed: a program could not start, a transfer failed."""

    __module__ = "lastmile.emulate"


@dataclass
class EmulationResult:
    """What an emulation measured.

    `summary` is the simulation's run summary (links, the wireless hop, cells, the agent)
    without its ``flows`` (their simulated endpoints never ran); `ports` what crossed each
    port (and what was refused or could not be carried whole); `timing` the real-time
    loop's lateness (``lag``: events late by more than 1 ms, maximum, percentiles,
    ``kept_up``) and CPU time; `transfers` the built-in bulk transfers (bytes, goodput,
    completion, ``verified``: the sink read exactly what the source wrote, the source's
    ``tcp_info`` and its namespace's TCP MIB counters ``mib``); `programs` the programs run
    and their exit statuses.
    """

    stop_reason: str
    summary: dict[str, Any]
    ports: dict[str, Any]
    timing: dict[str, Any]
    transfers: list[dict[str, Any]] = field(default_factory=list)
    programs: list[dict[str, Any]] = field(default_factory=list)
    namespaces: list[str] = field(default_factory=list)
    #: What in the scenario misbehaves against real hosts (also printed by the CLI).
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "stop_reason": self.stop_reason,
            "warnings": self.warnings,
            "transfers": self.transfers,
            "programs": self.programs,
            "timing": self.timing,
            "ports": self.ports,
            "namespaces": self.namespaces,
            "summary": self.summary,
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @property
    def kept_up(self) -> bool:
        return bool(self.timing["lag"]["kept_up"])


@dataclass
class _Program:
    node: str
    argv: list[str]
    process: subprocess.Popen[str]
    waited: bool
    role: str = "exec"
    output: str | None = None

    def describe(self) -> dict[str, Any]:
        return {
            "node": self.node,
            "command": shlex.join(self.argv) if self.role == "exec" else self.role,
            "returncode": self.process.returncode,
        }


def _bulk_bytes(traffic: str) -> int:
    kind, _, size = traffic.partition(":")
    quantity = parse_quantity(size)
    if kind != "bulk" or quantity is None or quantity[1] != "bytes" or quantity[0] <= 0:
        raise EmulationError(
            f'--traffic "{traffic}": expected bulk:SIZE, e.g. bulk:20MB (sizes as in '
            "scenarios: B, KB, MB, KiB, ...)"
        )
    return int(quantity[0])


def _flow_ends(scenario: Scenario) -> list[tuple[str, str, int | None]]:
    """(source node, destination node, bulk bytes or None) of each [[flow]] entry."""
    ends = []
    for i, f in enumerate(scenario.to_dict()["flow"]):
        src, dst = f.get("src"), f.get("dst")
        if not isinstance(src, str) or not isinstance(dst, str) or f.get("count", 1) != 1:
            raise EmulationError(
                f"flow {i}: the built-in traffic needs one source and one destination node"
            )
        app = f.get("app", {})
        size = parse_quantity(app.get("bytes")) if app.get("kind") == "bulk" else None
        ends.append((src, dst, int(size[0]) if size else None))
    return ends


#: Linux's TCP timestamp clock (``TCP_TS_HZ``, 1000 Hz since Linux 4.13).
LINUX_TS_CLOCK = "1ms"


def _scenario_warnings(scenario: Scenario) -> list[str]:
    """What in `scenario` will misbehave against Linux hosts."""
    stations = scenario.to_dict().get("base_station") or []
    if isinstance(stations, dict):
        stations = [stations]
    agents = [s.get("agent") for s in stations if isinstance(s, dict)]
    warnings = []
    for st in agents:
        if not isinstance(st, dict):
            continue
        if st.get("kind") != "wtcp" or st.get("timestamps", "exact") != "exact":
            continue
        clock = st.get("source_clock", "100ms")
        if parse_quantity(clock) != parse_quantity(LINUX_TS_CLOCK):
            warnings.append(
                f"WTCP rewrites timestamps in ticks of source_clock = {clock}, but Linux's "
                f"timestamp clock ticks every {LINUX_TS_CLOCK}: its local retransmissions will "
                "carry TSvals older than the receiver's TS.Recent and Linux discards them "
                f'(PAWS, RFC 7323 §5); set base_station.wtcp.source_clock = "{LINUX_TS_CLOCK}"'
            )
    return warnings


@contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM raises KeyboardInterrupt in the main thread for the duration."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _stop(programs: Sequence[_Program]) -> None:
    """Stops the programs still running: SIGTERM to their process groups, then SIGKILL."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        running = [p for p in programs if p.process.poll() is None]
        for p in running:
            with suppress(ProcessLookupError):
                os.killpg(p.process.pid, sig)
        deadline = time.monotonic() + KILL_GRACE_S
        while running and time.monotonic() < deadline:
            running = [p for p in running if p.process.poll() is None]
            time.sleep(0.02)
    for p in programs:
        p.process.wait()


def _cpu_plan(pin: bool) -> tuple[int | None, set[int] | None]:
    """(the loop's CPU, the programs' CPUs), or (None, None) to leave both to the
    scheduler: with `pin` and at least two CPUs allowed, the last CPU for the loop and the
    rest for the programs (module notes)."""
    if not pin or not hasattr(os, "sched_getaffinity"):
        return None, None
    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) < 2:
        return None, None
    return allowed[-1], set(allowed[:-1])


@contextmanager
def _on_cpus(cpus: set[int] | None) -> Iterator[None]:
    """The calling thread runs on `cpus` for the duration (what it starts inherits them)."""
    if cpus is None:
        yield
        return
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, cpus)
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


def _read_json_line(stream: IO[str] | None) -> dict[str, Any]:
    line = stream.readline() if stream is not None else ""
    try:
        value = json.loads(line)
    except json.JSONDecodeError:
        return {"error": f"no result (output: {line.strip()[:200]!r})"}
    return value if isinstance(value, dict) else {"error": "no result"}


class _Session:
    """One emulation's processes and namespaces."""

    def __init__(
        self,
        namespaces: Namespaces,
        program_output: IO[str] | None,
        program_cpus: set[int] | None = None,
    ) -> None:
        self.ns = namespaces
        self.programs: list[_Program] = []
        self.output = program_output
        self.cpus = program_cpus

    def port(self, node: str) -> Port:
        for p in self.ns.ports:
            if p.node == node:
                return p
        names = ", ".join(p.node for p in self.ns.ports)
        raise EmulationError(f'no endpoint node "{node}" in this emulation (its ports: {names})')

    def spawn(self, node: str, argv: list[str], *, waited: bool, role: str) -> _Program:
        port = self.port(node)
        piped = role != "exec"
        with _on_cpus(self.cpus):
            process = subprocess.Popen(
                self.ns.exec_argv(port, argv),
                stdout=subprocess.PIPE if piped else self.output,
                stderr=subprocess.PIPE if piped else self.output,
                text=True,
                start_new_session=True,
            )
        program = _Program(node, argv, process, waited, role)
        self.programs.append(program)
        return program

    def start_bulk(self, flows: list[tuple[str, str, int]], cc: str | None) -> list[_Program]:
        pairs = []
        python = [sys.executable, "-m", "lastmile.emulate._bulk"]
        cc_args = ["--cc", cc] if cc else []
        for i, (src, dst, size) in enumerate(flows):
            addr = self.port(dst).address
            sink = self.spawn(
                dst,
                [*python, "sink", "--bind", addr, "--port", str(BULK_PORT + i), *cc_args],
                waited=True,
                role="bulk sink",
            )
            ready = _read_json_line(sink.process.stdout)
            if not ready.get("listening"):
                err = ready.get("error") or (
                    sink.process.stderr.read() if sink.process.stderr else ""
                )
                raise EmulationError(f"the bulk sink on {dst} did not start: {err.strip()}")
            source = self.spawn(
                src,
                [
                    *python,
                    "source",
                    "--connect",
                    addr,
                    "--port",
                    str(BULK_PORT + i),
                    "--bytes",
                    str(size),
                    *cc_args,
                ],
                waited=True,
                role="bulk source",
            )
            pairs += [sink, source]
        return pairs

    def wait(self, deadline: float, loop: threading.Thread) -> None:
        """Until every waited program has exited, the deadline, or the loop's end."""
        waited = [p for p in self.programs if p.waited]
        while time.monotonic() < deadline and loop.is_alive():
            if all(p.process.poll() is not None for p in waited):
                return
            time.sleep(0.02)


def _transfer(sink: _Program, source: _Program) -> dict[str, Any]:
    s = _read_json_line(sink.process.stdout)
    c = _read_json_line(source.process.stdout)
    out: dict[str, Any] = {"src": source.node, "dst": sink.node}
    errors = [r["error"] for r in (s, c) if "error" in r]
    if errors or "bytes" not in s or "bytes" not in c:
        out["error"] = "; ".join(errors) or "the transfer did not finish"
        out["bytes"] = s.get("bytes", 0)
        return out
    span = (s["last_byte_mono_s"] or 0.0) - c["first_write_mono_s"]
    out.update(
        {
            "bytes": s["bytes"],
            "verified": s["bytes"] == c["bytes"] and s["sha256"] == c["sha256"],
            "goodput_bps": 8 * s["bytes"] / span if span > 0 else 0.0,
            "transfer_s": span,
            "completion_s": c["completion_s"],
            "cc": c["cc"],
            "tcp_info": c["tcp_info"],
            "mib": c.get("mib", {}),
        }
    )
    return out


def emulate(
    scenario: Scenario | str | os.PathLike[str],
    *,
    traffic: str | None = None,
    cc: str | None = None,
    exec_programs: Sequence[tuple[str, str]] = (),
    sysctls: Sequence[str] = (),
    seed: int | None = None,
    overrides: Overrides | None = None,
    pcap: Sequence[str] = (),
    out_dir: str | os.PathLike[str] | None = None,
    duration_s: float | None = None,
    realtime: bool = True,
    pin: bool = True,
    program_output: IO[str] | None = None,
) -> EmulationResult:
    """Runs `scenario` in real time between real hosts (module notes). `sysctls` are
    ``key=value`` settings of per-namespace ``net.ipv4.tcp_*`` keys applied in every
    namespace. With `realtime` the loop's thread asks for real-time priority (SCHED_FIFO),
    so that other processes do not delay it (``timing.realtime`` says if it got it); with
    `pin` its thread is bound to a CPU the run's programs stay off (module notes;
    ``timing.cpu``).
    Raises `EmulationUnavailable` where the machine cannot, `EmulationError`
    when a program or transfer fails to start, `lastmile.ScenarioError` for a bad
    scenario; a Ctrl-C (or SIGTERM) ends the run as "interrupted" and the result is
    returned."""
    missing = missing_requirements()
    if missing is not None:
        raise EmulationUnavailable(missing)
    if not isinstance(scenario, Scenario):
        scenario = load(scenario, overrides)
    elif overrides:
        raise EmulationError("give overrides with a scenario path, not a loaded Scenario")
    flows = _flow_ends(scenario)
    warnings = _scenario_warnings(scenario)
    bulk: list[tuple[str, str, int]] = []
    if traffic is not None:
        size = _bulk_bytes(traffic)
        bulk = [(src, dst, size) for src, dst, _ in flows]
    elif not exec_programs:
        if any(size is None for _, _, size in flows):
            raise EmulationError("give --traffic bulk:SIZE or programs: a flow has no bulk size")
        bulk = [(src, dst, size) for src, dst, size in flows if size is not None]
    settings = []
    for s in sysctls:
        key, sep, value = s.partition("=")
        if not sep:
            raise EmulationError(f'sysctl "{s}": expected key=value')
        settings.append((key.strip(), value.strip()))
    limit = duration_s
    if limit is None:
        stop = parse_quantity(scenario.to_dict().get("stop_time"))
        limit = stop[0] if stop else 3600.0
    emulator = _core.Emulator(
        text=scenario.to_json(),
        format="json",
        origin=scenario.origin,
        seed=seed,
        pcap=list(pcap),
        out_dir=None if out_dir is None else os.fspath(out_dir),
    )
    namespaces = Namespaces.plan(emulator.ports())
    loop_cpu, program_cpus = _cpu_plan(pin)
    session = _Session(namespaces, program_output, program_cpus)
    outcome: list[str] = []
    failure: list[BaseException] = []

    def loop() -> None:
        try:
            outcome.append(emulator.run(limit, realtime, loop_cpu))
        except BaseException as e:  # re-raised in the caller's thread
            failure.append(e)

    interrupted = False
    waited_done = False
    pairs: list[_Program] = []
    transfers: list[dict[str, Any]] = []
    thread = threading.Thread(target=loop, name="lastmile-emulate", daemon=True)
    with _sigterm_as_interrupt():
        try:
            try:
                for port in namespaces.ports:
                    emulator.open_tun(port.index, port.device)
                    namespaces.create(port)
            except (OSError, SimulationError) as e:
                raise EmulationUnavailable(
                    f"lastmile emulate could not set up its TUN devices and namespaces: {e}"
                ) from None
            for key, value in settings:
                try:
                    namespaces.sysctl(key, value)
                except ValueError as e:
                    raise EmulationError(str(e)) from None
            thread.start()
            deadline = time.monotonic() + limit
            pairs = session.start_bulk(bulk, cc) if bulk else []
            for i, (node, command) in enumerate(exec_programs):
                if i > 0 or pairs:
                    time.sleep(EXEC_STAGGER_S)
                session.spawn(node, ["sh", "-c", command], waited=False, role="exec")
            if session.programs and not pairs:
                session.programs[-1].waited = True
            session.wait(deadline, thread)
        except KeyboardInterrupt:
            interrupted = True
        finally:
            emulator.stop(interrupted)
            waited_done = all(p.process.poll() is not None for p in session.programs if p.waited)
            _stop(session.programs)
            if thread.ident is not None:
                thread.join(timeout=30)
            namespaces.close()
    try:
        if failure:
            raise failure[0]
        if not outcome:
            if interrupted:
                raise KeyboardInterrupt
            raise EmulationError("the emulation loop did not finish")
        for k in range(0, len(pairs), 2):
            transfers.append(_transfer(pairs[k], pairs[k + 1]))
    finally:
        for p in session.programs:
            for stream in (p.process.stdout, p.process.stderr):
                if stream is not None:
                    stream.close()
    data = json.loads(outcome[0])
    summary = data["summary"]
    summary.pop("flows", None)
    summary.pop("groups", None)
    summary.pop("fairness", None)
    stop_reason = summary.get("engine", {}).get("stop_reason", "completed")
    if interrupted:
        stop_reason = "interrupted"
    elif not waited_done:
        stop_reason = "stop_time"
    return EmulationResult(
        stop_reason=stop_reason,
        summary=summary,
        ports=data["ports"],
        timing=data["timing"],
        transfers=transfers,
        programs=[p.describe() for p in session.programs],
        namespaces=[p.namespace for p in namespaces.ports],
        warnings=warnings,
    )
