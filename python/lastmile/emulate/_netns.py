"""Network namespaces for an emulation: one per port, named after the run, with the port's
TUN device, its address and routes to the other ports' addresses, and nothing else (no
veth, no route to the host's interfaces). Everything is done with iproute2 (``ip``).

Names: namespace ``lastmile-<pid>.<start>-<i>-<node>`` and device ``lm<pid>p<i>`` (at most
15 bytes), where ``<pid>`` and ``<start>`` are the running process's id and start time
(``/proc/<pid>/stat`` field 22), so that `clean_stale` can tell a namespace whose run is
gone from one of a run still going, even after the id is reused. The TUN devices vanish
with the descriptors that hold them; the namespaces and the processes started in them do
not, and are removed by `Namespaces.close` (on exit, Ctrl-C and error) or, after a
SIGKILL, by `clean_stale` (``lastmile emulate --clean``).

Sysctls: only ``net.ipv4.tcp_*`` keys that are per namespace may be set; each is checked
to leave the host's value as it was (a key the kernel keeps global would change the host:
it is put back and refused).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "NAMESPACE_PREFIX",
    "Namespaces",
    "Port",
    "clean_stale",
    "missing_requirements",
]

NAMESPACE_PREFIX = "lastmile-"
_STALE = re.compile(r"^lastmile-(\d+)\.(\d+)-")
#: Sysctls that are global even though they are named net.ipv4.tcp_*.
_GLOBAL_SYSCTLS = {"net.ipv4.tcp_mem"}
#: The TUN clone device every port's device is opened from.
TUN_CLONE_DEVICE = Path("/dev/net/tun")


def missing_requirements() -> str | None:
    """What this machine lacks for an emulation, in one line, or None."""
    if os.name != "posix" or not Path("/proc/self/ns/net").exists():
        return "lastmile emulate needs Linux with network namespaces"
    if os.geteuid() != 0:
        return f"lastmile emulate needs root (running as uid {os.geteuid()})"
    if not TUN_CLONE_DEVICE.exists():
        return f"lastmile emulate needs {TUN_CLONE_DEVICE} (the tun module)"
    if shutil.which("ip") is None:
        return "lastmile emulate needs iproute2's `ip` command"
    return None


def _start_time(pid: int) -> int | None:
    """The start time of process `pid` in clock ticks since boot, or None if it is gone
    (or dead and not yet reaped: a zombie, as a SIGKILLed run is until its parent waits)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name (field 2) may contain spaces: split after its closing parenthesis.
    fields = stat.rsplit(")", 1)[1].split()
    if fields[0] in ("Z", "X"):
        return None
    return int(fields[19])


def run_tag() -> str:
    """``<pid>.<start time>`` of this process."""
    pid = os.getpid()
    return f"{pid}.{_start_time(pid)}"


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["ip", *args], check=check, capture_output=True, text=True)


def _run_checked(args: Sequence[str]) -> None:
    done = subprocess.run(list(args), capture_output=True, text=True)
    if done.returncode != 0:
        raise OSError(f"{' '.join(args)}: {done.stderr.strip() or done.returncode}")


def list_namespaces() -> list[str]:
    """The names of every network namespace ``ip netns`` knows."""
    out = _ip("netns", "list", check=False).stdout
    return [line.split()[0] for line in out.splitlines() if line.strip()]


def _kill_namespace(name: str) -> None:
    """Kills the processes in namespace `name` and deletes it."""
    pids = _ip("netns", "pids", name, check=False).stdout.split()
    for sig in (signal.SIGTERM, signal.SIGKILL):
        alive = []
        for p in pids:
            try:
                os.kill(int(p), sig)
                alive.append(p)
            except (ProcessLookupError, ValueError):
                pass
        if not alive:
            break
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline and any(Path(f"/proc/{p}").exists() for p in alive):
            time.sleep(0.02)
        pids = [p for p in alive if Path(f"/proc/{p}").exists()]
    _ip("netns", "del", name, check=False)


def clean_stale() -> list[str]:
    """Removes the namespaces (and their processes) of emulations whose process is gone;
    returns their names. Those of runs still going are left alone."""
    removed = []
    for name in list_namespaces():
        m = _STALE.match(name)
        if m is None:
            continue
        pid, start = int(m.group(1)), int(m.group(2))
        if _start_time(pid) == start:
            continue
        _kill_namespace(name)
        removed.append(name)
    return removed


@dataclass
class Port:
    """One port of the emulation: a scenario node standing for a real host."""

    index: int
    node: str
    address: str
    namespace: str
    device: str


@dataclass
class Namespaces:
    """The namespaces of one run; `close` removes them (idempotent)."""

    ports: list[Port]
    created: list[str] = field(default_factory=list)

    @classmethod
    def plan(cls, ports: Sequence[tuple[str, str]]) -> Namespaces:
        """Names for `ports` ((node, address) in order) derived from this run."""
        tag = run_tag()
        pid = os.getpid()
        planned = []
        for i, (node, address) in enumerate(ports):
            safe = re.sub(r"[^A-Za-z0-9_.-]", "_", node)[:40]
            planned.append(
                Port(
                    index=i,
                    node=node,
                    address=address,
                    namespace=f"{NAMESPACE_PREFIX}{tag}-{i}-{safe}",
                    device=f"lm{pid}p{i}"[:15],
                )
            )
        return cls(planned)

    def create(self, port: Port) -> None:
        """Makes `port`'s namespace and moves its (already created) device into it."""
        _run_checked(["ip", "netns", "add", port.namespace])
        self.created.append(port.namespace)
        ns = port.namespace
        for args in (
            ["ip", "link", "set", "dev", port.device, "netns", ns],
            # The device carries IPv4 only: no link-local IPv6, router solicitations, MLD.
            ["ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1"],
            ["ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.default.disable_ipv6=1"],
            ["ip", "-n", ns, "link", "set", "lo", "up"],
            ["ip", "-n", ns, "addr", "add", f"{port.address}/32", "dev", port.device],
            ["ip", "-n", ns, "link", "set", port.device, "up"],
        ):
            _run_checked(args)
        for other in self.ports:
            if other.index != port.index:
                _run_checked(
                    ["ip", "-n", ns, "route", "add", f"{other.address}/32", "dev", port.device]
                )

    def sysctl(self, key: str, value: str) -> None:
        """Sets `key` to `value` in every namespace, refusing one that is not per namespace."""
        if not re.fullmatch(r"net\.ipv4\.tcp_[a-z0-9_]+", key) or key in _GLOBAL_SYSCTLS:
            raise ValueError(
                f"sysctl {key}: only per-namespace net.ipv4.tcp_* keys can be set "
                "(e.g. net.ipv4.tcp_sack=0)"
            )
        path = Path("/proc/sys") / key.replace(".", "/")
        if not path.exists():
            raise ValueError(f"sysctl {key}: this kernel has no such key")
        host = path.read_text()
        for ns in self.created:
            _run_checked(["ip", "netns", "exec", ns, "sysctl", "-qw", f"{key}={value}"])
        if path.read_text() != host:
            path.write_text(host)
            raise ValueError(f"sysctl {key} is global on this kernel, not per namespace: refused")

    def exec_argv(self, port: Port, argv: Sequence[str]) -> list[str]:
        """The command line that runs `argv` in `port`'s namespace."""
        return ["ip", "netns", "exec", port.namespace, *argv]

    def close(self) -> None:
        """Kills every process left in the run's namespaces and deletes them."""
        while self.created:
            _kill_namespace(self.created.pop())

    def left_behind(self) -> list[str]:
        """The run's namespaces that still exist."""
        mine = {p.namespace for p in self.ports}
        return [n for n in list_namespaces() if n in mine]
