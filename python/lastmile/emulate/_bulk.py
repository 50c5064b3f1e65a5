"""The built-in bulk transfer of ``lastmile emulate --traffic bulk:SIZE``: a sink and a
source, each run in its namespace as ``python -m lastmile.emulate._bulk``, each printing
one JSON object on stdout when it is done.

- ``sink --bind ADDR --port P [--cc CC]`` accepts one connection, reads to the end, closes,
  and reports the bytes, the SHA-256 of what it read, and (monotonic clock, shared by
  every namespace) when the first and the last byte arrived.
- ``source --connect ADDR --port P --bytes N [--cc CC]`` connects (congestion control
  ``CC`` set on the socket with ``TCP_CONGESTION`` before the connection), writes `N`
  bytes of a seeded pseudo-random stream, shuts its side down and waits for the sink to
  close; it reports when it started writing, the SHA-256 of what it wrote, the
  completion time (connect to the sink's close) and the kernel's ``TCP_INFO`` counters
  at the end (retransmissions, RTT, cwnd, ...) and its namespace's TCP MIB counters
  (``nstat``'s: RTOs, tail-loss probes, SACK recoveries, HyStart exits, ...).

Goodput is the sink's bytes over the time from the source's first write to the sink's
last byte: the same span as a simulated flow's (first data sent to last byte delivered).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import socket
import struct
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["TCP_INFO_FIELDS", "main", "pattern_block", "tcp_info"]

#: The size of the pseudo-random block the source repeats (a prime, so that a misplaced
#: block is never the same bytes).
BLOCK = 1_048_573
#: The write size.
CHUNK = 65_536

#: (name, struct format, offset) of the `struct tcp_info` fields reported
#: (include/uapi/linux/tcp.h): the u8 header, then u32s from tcpi_rto, then u64s.
TCP_INFO_FIELDS: tuple[tuple[str, str, int], ...] = (
    ("ca_state", "B", 1),
    ("rto_us", "I", 8),
    ("snd_mss", "I", 16),
    ("lost", "I", 32),
    ("retrans", "I", 36),
    ("rtt_us", "I", 68),
    ("rttvar_us", "I", 72),
    ("snd_ssthresh", "I", 76),
    ("snd_cwnd", "I", 80),
    ("reordering", "I", 92),
    ("total_retrans", "I", 100),
    ("min_rtt_us", "I", 148),
    ("data_segs_out", "I", 156),
    ("delivery_rate_Bps", "Q", 160),
    ("bytes_sent", "Q", 200),
    ("bytes_retrans", "Q", 208),
    ("dsack_dups", "I", 216),
    ("reord_seen", "I", 220),
)
_TCP_INFO_LEN = 232


def pattern_block(seed: int = 1) -> bytes:
    """The block the source repeats: `BLOCK` seeded pseudo-random bytes."""
    return random.Random(seed).randbytes(BLOCK)


def tcp_info(sock: socket.socket) -> dict[str, int]:
    """The `TCP_INFO_FIELDS` of `sock` (those the kernel's struct is long enough for)."""
    raw = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, _TCP_INFO_LEN)
    out = {}
    for name, fmt, offset in TCP_INFO_FIELDS:
        if offset + struct.calcsize(fmt) <= len(raw):
            out[name] = struct.unpack_from(fmt, raw, offset)[0]
    return out


def mib_counters() -> dict[str, int]:
    """The namespace's nonzero TCP counters (``/proc/net/netstat`` TcpExt, ``/proc/net/snmp``
    Tcp): timeouts, loss probes, SACK recoveries, spurious RTOs, HyStart exits, ... . Each
    emulation's namespaces are new, so they count this run only."""
    out: dict[str, int] = {}
    for path, prefix in (("/proc/net/netstat", "TcpExt:"), ("/proc/net/snmp", "Tcp:")):
        try:
            lines = [line.split() for line in Path(path).read_text().splitlines()]
        except OSError:
            continue
        rows = [line for line in lines if line and line[0] == prefix]
        for names, values in zip(rows[0::2], rows[1::2], strict=False):
            for name, value in zip(names[1:], values[1:], strict=False):
                if value.lstrip("-").isdigit() and int(value) != 0:
                    out[f"{prefix[:-1]}{name}"] = int(value)
    return out


AVAILABLE_CC = Path("/proc/sys/net/ipv4/tcp_available_congestion_control")


def _set_cc(sock: socket.socket, cc: str | None) -> None:
    if not cc:
        return
    try:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
    except OSError as e:
        try:
            offered = AVAILABLE_CC.read_text().strip()
        except OSError:
            offered = "?"
        raise OSError(
            f'congestion control "{cc}": {e.strerror}; this kernel offers: {offered} '
            f"({AVAILABLE_CC})"
        ) from None


def _sink(args: argparse.Namespace) -> dict[str, Any]:
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    _set_cc(server, args.cc)
    server.bind((args.bind, args.port))
    server.listen(1)
    print(json.dumps({"listening": True}), flush=True)
    conn, _ = server.accept()
    digest = hashlib.sha256()
    received = 0
    first = last = None
    buf = bytearray(1 << 20)
    view = memoryview(buf)
    while True:
        n = conn.recv_into(buf)
        if n == 0:
            break
        now = time.monotonic()
        if first is None:
            first = now
        last = now
        received += n
        digest.update(view[:n])
    cc = conn.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16).rstrip(b"\0").decode()
    conn.close()
    server.close()
    return {
        "role": "sink",
        "bytes": received,
        "sha256": digest.hexdigest(),
        "first_byte_mono_s": first,
        "last_byte_mono_s": last,
        "cc": cc,
    }


def _source(args: argparse.Namespace) -> dict[str, Any]:
    block = pattern_block(args.seed)
    stream = block * 2  # any window of BLOCK bytes is a slice
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    _set_cc(sock, args.cc)
    t_connect = time.monotonic()
    sock.connect((args.connect, args.port))
    t_first = time.monotonic()
    digest = hashlib.sha256()
    sent = 0
    while sent < args.bytes:
        at = sent % BLOCK
        n = min(CHUNK, args.bytes - sent, BLOCK)
        chunk = memoryview(stream)[at : at + n]
        n = sock.send(chunk)
        digest.update(chunk[:n])
        sent += n
    sock.shutdown(socket.SHUT_WR)
    while sock.recv(65536):
        pass
    t_done = time.monotonic()
    info = tcp_info(sock)
    cc = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16).rstrip(b"\0").decode()
    sock.close()
    return {
        "role": "source",
        "bytes": sent,
        "sha256": digest.hexdigest(),
        "connect_mono_s": t_connect,
        "first_write_mono_s": t_first,
        "done_mono_s": t_done,
        "completion_s": t_done - t_connect,
        "cc": cc,
        "tcp_info": info,
        "mib": mib_counters(),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lastmile.emulate._bulk")
    roles = parser.add_subparsers(dest="role", required=True)
    sink = roles.add_parser("sink")
    sink.add_argument("--bind", required=True)
    sink.add_argument("--port", type=int, required=True)
    sink.add_argument("--cc")
    source = roles.add_parser("source")
    source.add_argument("--connect", required=True)
    source.add_argument("--port", type=int, required=True)
    source.add_argument("--bytes", type=int, required=True)
    source.add_argument("--cc")
    source.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    try:
        result = _sink(args) if args.role == "sink" else _source(args)
    except OSError as e:
        result = {"role": args.role, "error": str(e)}
        print(json.dumps(result), flush=True)
        return 1
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
