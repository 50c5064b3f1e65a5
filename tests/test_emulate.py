"""``lastmile emulate``: real Linux TCP through the simulated chain, in network namespaces
this test creates and removes (addresses 10.0.0.x exist only inside them).

Needs root, /dev/net/tun, iproute2 and a network namespace that can actually be made
(skipped with the reason otherwise: ``pytest -rs`` prints it); the capture checks need
tshark. Each run moves 1 MB over a 10 Mbps hop: a few seconds. Whatever a test leaves,
passing or failing (namespaces, the processes in them, the CLI runs it started), the
`no_leftovers` fixture removes after it.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import lastmile_cli, write
from lastmile.emulate import EmulationUnavailable, emulate, missing_requirements
from lastmile.emulate._bulk import BLOCK, pattern_block
from lastmile.emulate._netns import (
    NAMESPACE_PREFIX,
    _kill_namespace,
    _start_time,
    clean_stale,
    list_namespaces,
    run_tag,
)


def _cannot_emulate() -> str | None:
    """Why this machine cannot run the emulation tests, or None: the requirements the
    CLI checks, then a namespace actually made and removed (a container may refuse it
    even to root)."""
    missing = missing_requirements()
    if missing is not None:
        return missing
    probe = f"{NAMESPACE_PREFIX}{run_tag()}-probe"
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if made.returncode != 0:
        return f"cannot create a network namespace: {made.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return None


MISSING = _cannot_emulate()
needs_emulation = pytest.mark.skipif(MISSING is not None, reason=MISSING or "")
TSHARK = shutil.which("tshark")
needs_tshark = pytest.mark.skipif(TSHARK is None, reason="tshark is not installed")

#: The CLI runs a test started (`_start_cli`), stopped by `no_leftovers` if still going.
_STARTED: list[subprocess.Popen[str]] = []


@pytest.fixture(autouse=True)
def no_leftovers() -> Iterator[None]:
    """After each test, pass or fail: stops the CLI runs it started and removes the
    namespaces (and their processes) of this process's runs and of its dead children's."""
    yield
    if MISSING is not None:
        return
    while _STARTED:
        proc = _STARTED.pop()
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=30)
    for name in list_namespaces():
        if name.startswith(f"{NAMESPACE_PREFIX}{run_tag()}-"):
            _kill_namespace(name)
    clean_stale()


LOSSY_SNOOP = """
name = "emulate-snoop"
stop_time = "60s"
[topology]
preset = "chain"
wired = { rate = "100Mbps", delay = "5ms", queue = "1000pkt" }
wireless = { rate = "10Mbps", delay = "1ms", queue = "100pkt",
             errors = { model = "per", per = 0.03 } }
[base_station]
agent = "snoop"
[[flow]]
src = "fh"
dst = "mh"
app = { kind = "bulk", bytes = "1MB" }
"""


def nothing_left_behind() -> list[str]:
    """What this process's runs left: namespaces, TUN devices, bulk processes."""
    left = [n for n in list_namespaces() if n.startswith(f"lastmile-{run_tag()}-")]
    links = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True).stdout
    left += [w for w in links.split() if w.startswith(f"lm{os.getpid()}p")]
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                cmdline = (proc / "cmdline").read_bytes()
            except OSError:
                continue
            if b"lastmile.emulate._bulk" in cmdline:
                left.append(f"process {proc.name}")
    return left


def tshark_rows(path: Path, *fields: str, where: str = "") -> list[list[str]]:
    assert TSHARK is not None
    args = [TSHARK, "-r", str(path), "-T", "fields", "-E", "separator=\t"]
    args += [a for f in fields for a in ("-e", f)]
    if where:
        args += ["-Y", where]
    out = subprocess.run(args, capture_output=True, text=True, timeout=120, check=True)
    return [line.split("\t") for line in out.stdout.splitlines()]


def resent_frames(rows: list[list[str]]) -> int:
    """Data frames (seq, length) that repeat bytes an earlier frame carried."""
    highest = 0
    again = 0
    for seq, length in rows:
        start, end = int(seq), int(seq) + int(length)
        if start < highest:
            again += 1
        highest = max(highest, end)
    return again


@needs_emulation
@needs_tshark
def test_linux_tcp_crosses_a_lossy_hop_with_snoop_and_the_capture_agrees(
    tmp_path: Path,
) -> None:
    scenario = write(tmp_path, "s.toml", LOSSY_SNOOP)
    out = tmp_path / "out"
    captured = ["wired", "wireless"]
    result = emulate(scenario, traffic="bulk:1MB", cc="cubic", pcap=captured, out_dir=out)
    assert nothing_left_behind() == []
    assert result.stop_reason == "completed", result.to_dict()
    (t,) = result.transfers
    assert t["verified"], t
    assert t["bytes"] == 1_000_000
    assert t["cc"] == "cubic"
    assert 0 < t["goodput_bps"] < 10e6
    agent = result.summary["agent"]
    assert agent["local_retransmissions"] > 0, agent
    assert result.ports["payload"]["bytes_unknown"] == 0
    fh, mh = result.ports["ports"]
    assert (fh["node"], mh["node"]) == ("fh", "mh")

    # The captures hold every frame the links counted, the lost ones flagged.
    links = {(row["name"], row["from"]): row for row in result.summary["links"]}
    wireless = out / "wireless.pcapng"
    rows = tshark_rows(wireless, "frame.packet_flags_crc_error", "ip.src")
    sent = links[("wireless", "bs")]["frames_sent"] + links[("wireless", "mh")]["frames_sent"]
    lost = links[("wireless", "bs")]["frames_lost"] + links[("wireless", "mh")]["frames_lost"]
    assert len(rows) == sent
    assert sum(r[0] in ("1", "True") for r in rows) == lost > 0
    # What entered at fh is what the wired link carried from fh; what reached mh left there.
    wired_from_fh = tshark_rows(out / "wired.pcapng", "frame.number", where="ip.src==10.0.0.1")
    assert fh["packets_in"] == len(wired_from_fh)
    to_mh = tshark_rows(wireless, "frame.packet_flags_crc_error", where="ip.dst==10.0.0.3")
    assert mh["packets_out"] == sum(r[0] not in ("1", "True") for r in to_mh)
    # Linux's retransmissions are the wired link's repeated bytes; Snoop's local ones add
    # to them on the air.
    wired_data = tshark_rows(
        out / "wired.pcapng", "tcp.seq", "tcp.len", where="ip.src==10.0.0.1 && tcp.len > 0"
    )
    air_data = tshark_rows(wireless, "tcp.seq", "tcp.len", where="ip.src==10.0.0.1 && tcp.len > 0")
    linux_resent = t["tcp_info"]["total_retrans"]
    assert resent_frames(wired_data) == linux_resent
    assert resent_frames(air_data) >= agent["local_retransmissions"]
    assert resent_frames(air_data) <= agent["local_retransmissions"] + linux_resent
    # The captured payloads are the real bytes, Snoop's resent copies included.
    block = pattern_block(1)
    payloads = tshark_rows(
        wireless, "tcp.seq", "tcp.payload", where="ip.src==10.0.0.1 && tcp.len > 0"
    )
    assert len(payloads) > 600
    for seq, payload in payloads:
        data = bytes.fromhex(payload.replace(":", ""))
        at = (int(seq) - 1) % BLOCK
        assert data == (block + block)[at : at + len(data)], f"bytes at relative seq {seq}"


@needs_emulation
def test_a_program_cut_short_by_the_duration_leaves_nothing_behind(tmp_path: Path) -> None:
    scenario = write(tmp_path, "s.toml", LOSSY_SNOOP)
    result = emulate(scenario, exec_programs=[("fh", "sleep 30")], duration_s=1.0)
    assert result.stop_reason == "stop_time"
    assert result.programs[0]["returncode"] != 0, "stopped, not finished"
    assert nothing_left_behind() == []
    # Cut at the 1 s duration, not after the program's 30 s (a loaded machine may add a
    # few seconds of set-up and clean-up, never the program's remaining time).
    assert 0.9 <= result.timing["wall_s"] < 10.0


@needs_emulation
def test_clean_removes_the_namespaces_of_dead_runs_only(tmp_path: Path) -> None:
    dead = "lastmile-4194999.1-0-fh"  # no such process id on Linux (pid_max <= 4194304)
    live = f"lastmile-{run_tag()}-9-x"
    # A run killed and not yet waited for by its parent: a zombie, dead all the same.
    zombie = subprocess.Popen(["sleep", "30"])
    zombie_tag = f"{zombie.pid}.{_start_time(zombie.pid)}"
    zombie.kill()
    while Path(f"/proc/{zombie.pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
        time.sleep(0.01)
    of_zombie = f"lastmile-{zombie_tag}-0-fh"
    try:
        for name in (dead, live, of_zombie):
            subprocess.run(["ip", "netns", "add", name], check=True)
        removed = clean_stale()
        assert dead in removed
        assert of_zombie in removed
        assert live not in removed
        assert live in list_namespaces()
    finally:
        zombie.wait()
        for name in (dead, live, of_zombie):
            subprocess.run(["ip", "netns", "del", name], capture_output=True)


@needs_emulation
def test_an_error_while_setting_up_removes_what_was_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lastmile.emulate._netns import Namespaces

    create = Namespaces.create

    def second_fails(self: Namespaces, port: object) -> None:
        if self.created:
            raise OSError("ip netns add: refused (test)")
        create(self, port)  # type: ignore[arg-type]

    monkeypatch.setattr(Namespaces, "create", second_fails)
    scenario = write(tmp_path, "s.toml", LOSSY_SNOOP)
    with pytest.raises(EmulationUnavailable, match="refused"):
        emulate(scenario)
    assert nothing_left_behind() == []


def test_without_root_it_refuses_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    scenario = write(tmp_path, "s.toml", LOSSY_SNOOP)
    with pytest.raises(EmulationUnavailable, match="needs root"):
        emulate(scenario)


def test_the_cli_names_what_is_missing_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario = write(tmp_path, "s.toml", LOSSY_SNOOP)
    if MISSING is None:
        # Run as another user so that root is what is missing.
        if shutil.which("setpriv") is None:
            pytest.skip("setpriv is not installed")
        proc = subprocess.run(
            ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
             sys.executable, "-m", "lastmile", "emulate", str(scenario)],
            capture_output=True, text=True, timeout=60, cwd="/",
        )  # fmt: skip
        status, err = proc.returncode, proc.stderr
    else:
        # This machine lacks something already: the CLI in this process says what.
        from lastmile import cli

        status = cli.main(["emulate", str(scenario)])
        err = capsys.readouterr().err
    assert status == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "lastmile emulate needs" in lines[0], err


def test_without_the_tun_device_the_cli_refuses_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from lastmile import cli
    from lastmile.emulate import _netns

    monkeypatch.setattr(os, "geteuid", lambda: 0)
    monkeypatch.setattr(_netns, "TUN_CLONE_DEVICE", tmp_path / "no-tun")
    scenario = write(tmp_path, "s.toml", LOSSY_SNOOP)
    for argv in (["emulate", str(scenario)], ["emulate", "--clean"]):
        assert cli.main(argv) == 2
        lines = capsys.readouterr().err.strip().splitlines()
        assert lines == [
            f"lastmile: error: lastmile emulate needs {tmp_path / 'no-tun'} (the tun module)"
        ]


@needs_emulation
def test_the_namespaces_reach_only_each_other(tmp_path: Path) -> None:
    """Inside a port's namespace: loopback and the run's TUN device, an address of the
    simulated network, routes only through the TUN device; the host gains no address,
    route or device."""
    scenario = write(tmp_path, "s.toml", LOSSY_SNOOP)

    def host_view() -> tuple[str, str]:
        addrs = subprocess.run(["ip", "-o", "addr"], capture_output=True, text=True).stdout
        routes = subprocess.run(["ip", "route"], capture_output=True, text=True).stdout
        return addrs, routes

    before = host_view()
    seen = tmp_path / "inside.txt"
    with seen.open("w") as out:
        result = emulate(
            scenario,
            exec_programs=[("fh", "ip -o link; ip -o -4 addr; ip -4 route; ip -6 route")],
            program_output=out,
            duration_s=5.0,
        )
    assert result.programs[0]["returncode"] == 0, result.programs
    assert host_view() == before
    text = seen.read_text()
    links = [
        line.split(":")[1].strip().split("@")[0] for line in text.splitlines() if ": <" in line
    ]
    assert links == ["lo", f"lm{os.getpid()}p0"], text
    routes = [line for line in text.splitlines() if line.startswith(("10.", "default", "fe80"))]
    assert routes and all(f"dev lm{os.getpid()}p0" in r for r in routes), text
    assert not any(r.startswith("default") for r in routes), text
    assert "inet 10.0.0.1/32" in text, text


def test_wtcp_timestamps_in_the_papers_clock_are_flagged(tmp_path: Path) -> None:
    from lastmile._scenario import load
    from lastmile.emulate import _scenario_warnings

    wtcp = LOSSY_SNOOP.replace('agent = "snoop"', 'agent = "wtcp"')
    path = write(tmp_path, "w.toml", wtcp)
    (warning,) = _scenario_warnings(load(path))
    assert "PAWS" in warning and 'source_clock = "1ms"' in warning
    assert _scenario_warnings(load(path, ['base_station.wtcp.source_clock="1ms"'])) == []


def _namespaces_of(pid: int) -> list[str]:
    return [n for n in list_namespaces() if n.startswith(f"lastmile-{pid}.")]


def _start_cli(scenario: Path, *, piped: bool = True) -> subprocess.Popen[str]:
    """A `lastmile emulate` run of `scenario` whose program sleeps 30 s, once its
    namespaces exist. Not `piped`: its output (and the sleep's) goes nowhere, so that
    nothing waits for the sleep to close a pipe."""
    out = subprocess.PIPE if piped else subprocess.DEVNULL
    proc = subprocess.Popen(
        [sys.executable, "-m", "lastmile", "emulate", str(scenario), "--exec-fh", "sleep 30"],
        stdout=out,
        stderr=out,
        text=True,
    )
    _STARTED.append(proc)
    deadline = time.monotonic() + 30
    while len(_namespaces_of(proc.pid)) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(_namespaces_of(proc.pid)) == 2, "the run never made its namespaces"
    time.sleep(0.5)
    return proc


@needs_emulation
def test_ctrl_c_prints_the_summary_so_far_and_removes_everything(tmp_path: Path) -> None:
    proc = _start_cli(write(tmp_path, "s.toml", LOSSY_SNOOP))
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "stop reason: interrupted" in out
    assert _namespaces_of(proc.pid) == []


@needs_emulation
def test_after_a_sigkill_clean_removes_what_was_left(tmp_path: Path) -> None:
    proc = _start_cli(write(tmp_path, "s.toml", LOSSY_SNOOP), piped=False)
    proc.kill()
    proc.wait(timeout=30)
    left = _namespaces_of(proc.pid)
    assert len(left) == 2, "a SIGKILL leaves the namespaces (and the sleep in one)"
    sleeping = [p for name in left for p in _pids_in(name)]
    assert sleeping, "the program is still running in its namespace"
    done = lastmile_cli("emulate", "--clean")
    assert done.returncode == 0, done.stderr
    assert _namespaces_of(proc.pid) == []
    assert all(f"removed {n}" in done.stderr for n in left)
    assert [p for p in sleeping if _start_time(int(p)) is not None] == [], "still running"


def _pids_in(namespace: str) -> list[str]:
    out = subprocess.run(["ip", "netns", "pids", namespace], capture_output=True, text=True)
    return out.stdout.split()
