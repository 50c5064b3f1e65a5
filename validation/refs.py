"""The reference simulators, each in an environment of its own and never a dependency of
lastmile: where they are, whether they run, and how to install them when they are missing.

- ns-2.35: Debian's `ns2` package (`/usr/bin/ns`), installed with `apt-get install ns2` as
  root (or with password-less sudo). `$LASTMILE_NS2` names another `ns` binary.
- ns-3.44: the `ns3==3.44.post0` wheel in a virtual environment of its own,
  `$LASTMILE_NS3_VENV` (default `/work/ns3-venv`); `$NS3_PYTHON` names its interpreter
  directly (as `validation/cross_check.py` reads it).

`status(reference)` says in one line whether a reference can run and, if not, why;
`ensure(reference)` installs a missing one when it can and returns that line.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

NS2 = "ns-2.35"
NS3 = "ns-3.44"
REFERENCES = (NS2, NS3)

NS3_WHEEL = "ns3==3.44.post0"
DEFAULT_NS3_VENV = Path("/work/ns3-venv")


@dataclass(frozen=True)
class Status:
    """Whether a reference runs here, and one line saying so."""

    reference: str
    ok: bool
    line: str


def ns2_binary() -> Path | None:
    """The `ns` binary of ns-2.35, if there is one."""
    named = os.environ.get("LASTMILE_NS2")
    if named:
        return Path(named) if Path(named).is_file() else None
    found = shutil.which("ns")
    return Path(found) if found else None


def ns3_venv() -> Path:
    """Where ns-3's virtual environment is (or will be created)."""
    return Path(os.environ.get("LASTMILE_NS3_VENV", str(DEFAULT_NS3_VENV)))


def ns3_python() -> Path:
    """The interpreter that can `from ns import ns`."""
    named = os.environ.get("NS3_PYTHON")
    if named:
        return Path(named)
    return ns3_venv() / "bin" / "python"


def _ns2_status() -> Status:
    binary = ns2_binary()
    if binary is None:
        return Status(NS2, False, "ns-2.35 not installed (apt-get install ns2, as root)")
    probe = subprocess.run(
        [str(binary)],
        input="puts [Agent/TCP set windowInit_]\nexit 0\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if probe.returncode != 0 or probe.stdout.strip() != "2":
        return Status(NS2, False, f"{binary} does not run as ns-2.35 (windowInit_ 2 expected)")
    return Status(NS2, True, f"ns-2.35 at {binary}")


def _ns3_status() -> Status:
    python = ns3_python()
    if not python.is_file():
        return Status(NS3, False, f"ns-3.44 not installed (no {python}; {NS3_WHEEL} in a venv)")
    probe = subprocess.run(
        [
            str(python),
            "-c",
            "import importlib.metadata as m; print(m.version('ns3'))",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    version = probe.stdout.strip()
    if probe.returncode != 0 or not version.startswith("3.44"):
        return Status(NS3, False, f"{python} has no ns3 3.44 wheel (found {version or 'none'})")
    return Status(NS3, True, f"ns-3 {version} at {python}")


def status(reference: str) -> Status:
    """Whether `reference` ("ns-2.35" or "ns-3.44") runs here."""
    if reference == NS2:
        return _ns2_status()
    if reference == NS3:
        return _ns3_status()
    return Status(
        reference, False, f"unknown reference {reference!r}; expected one of {REFERENCES}"
    )


def _as_root() -> list[str] | None:
    """The prefix that runs a command as root, or None if nothing can."""
    if os.geteuid() == 0:
        return []
    sudo = shutil.which("sudo")
    if (
        sudo
        and subprocess.run([sudo, "-n", "true"], capture_output=True, check=False).returncode == 0
    ):
        return [sudo, "-n"]
    return None


def _install_ns2() -> str | None:
    """apt-get install ns2; None on success, else why not."""
    root = _as_root()
    if root is None:
        return "cannot install ns2: not root and no password-less sudo"
    if shutil.which("apt-get") is None:
        return "cannot install ns2: no apt-get (install ns-2.35 and set LASTMILE_NS2)"
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for cmd in (["apt-get", "update", "-q"], ["apt-get", "install", "-y", "-q", "ns2"]):
        done = subprocess.run([*root, *cmd], capture_output=True, text=True, env=env, check=False)
        if done.returncode != 0:
            tail = done.stderr.strip().splitlines()[-1:] or ["no output"]
            return f"cannot install ns2: {' '.join(cmd)} failed ({tail[0]})"
    return None


def _install_ns3() -> str | None:
    """A venv with the ns3 wheel; None on success, else why not."""
    venv = ns3_venv()
    python = venv / "bin" / "python"
    if not python.is_file():
        made = subprocess.run(
            [sys.executable, "-m", "venv", str(venv)], capture_output=True, text=True, check=False
        )
        if made.returncode != 0:
            return f"cannot create {venv}: {made.stderr.strip()[-200:]}"
    pip = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", NS3_WHEEL],
        capture_output=True,
        text=True,
        check=False,
    )
    if pip.returncode != 0:
        return f"cannot install {NS3_WHEEL} into {venv}: {pip.stderr.strip()[-200:]}"
    return None


def ensure(reference: str) -> Status:
    """`reference`'s status after installing it if it was missing and can be installed."""
    now = status(reference)
    if now.ok:
        return now
    if reference == NS2:
        failed = _install_ns2()
    elif reference == NS3:
        if os.environ.get("NS3_PYTHON"):
            return now  # an interpreter named explicitly is not ours to install into
        failed = _install_ns3()
    else:
        return now
    if failed:
        return Status(reference, False, failed)
    return status(reference)
