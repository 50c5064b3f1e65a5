"""How fast ``lastmile emulate`` keeps up: a saturating Linux CUBIC transfer through the
chain (wired = 10 x wireless rate, 5 ms + 1 ms, no loss) at rising rates, each point
reporting the goodput, the loop's lateness (p99, maximum, share of events late by more
than 1 ms, stalls), its CPU time per wall second and per forwarded packet (every datagram
written to a port entered at another: the loop's CPU time over the datagrams it wrote,
split into user time, the simulation, and system time, the TUN reads and writes and the
receiving namespace's TCP processing that the kernel does in the writing thread), Linux's
retransmissions beside the simulated queues' drops (equal when nothing is lost outside
the simulation, on a TUN device's queue say; the 200-packet queue is below one
bandwidth-delay product above 200 Mbps, where CUBIC's own losses cost goodput), and
how loaded the machine was (load average, and the share of both cores busy during the
run, from /proc/stat).

    sudo python bench/emulate_rate.py [--rates 10 50 100 200 400] [--seconds 5] [--repeat 2]
        [--no-pin]

Needs root and /dev/net/tun. Prints one line per run and a Markdown table.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lastmile.emulate import emulate

SCENARIO = """
name = "emulate-rate-{rate}"
stop_time = "120s"
[topology]
preset = "chain"
wired = {{ rate = "{wired}Mbps", delay = "5ms", queue = "1000pkt" }}
wireless = {{ rate = "{rate}Mbps", delay = "1ms", queue = "200pkt" }}
[[flow]]
src = "fh"
dst = "mh"
app = {{ kind = "bulk", bytes = "1MB" }}
"""


def cpu_busy() -> tuple[int, int]:
    """(busy, total) jiffies of all CPUs since boot."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    idle = fields[3] + fields[4]
    return sum(fields) - idle, sum(fields)


def one(rate: int, seconds: float, tmp: Path, pin: bool) -> dict[str, Any]:
    path = tmp / f"rate-{rate}.toml"
    path.write_text(SCENARIO.format(rate=rate, wired=10 * rate))
    size = int(rate * 1e6 / 8 * seconds)
    load = Path("/proc/loadavg").read_text().split()[0]
    busy0, total0 = cpu_busy()
    r = emulate(path, traffic=f"bulk:{size}B", cc="cubic", pin=pin)
    busy1, total1 = cpu_busy()
    (t,) = r.transfers
    tm = r.timing
    lag = tm["lag"]
    return {
        "rate_mbps": rate,
        "goodput_mbps": t.get("goodput_bps", 0.0) / 1e6,
        "verified": t.get("verified", False),
        "p99_ms": lag["p99_s"] * 1e3,
        "max_ms": lag["max_s"] * 1e3,
        "late_share": lag["late_events"] / max(lag["events"], 1),
        "stalls": lag["stalls"],
        "events_per_s": lag["events"] / tm["wall_s"],
        "forwarded_per_s": tm["datagrams_out"] / tm["wall_s"],
        "cpu_per_s": tm["cpu_s"] / tm["wall_s"],
        "us_per_datagram": tm["cpu_per_datagram_s"] * 1e6,
        "us_per_forwarded": tm["cpu_s"] / max(tm["datagrams_out"], 1) * 1e6,
        "us_user_per_forwarded": tm["cpu_user_s"] / max(tm["datagrams_out"], 1) * 1e6,
        "us_system_per_forwarded": tm["cpu_system_s"] / max(tm["datagrams_out"], 1) * 1e6,
        "retransmits": t["tcp_info"].get("total_retrans", 0),
        "queue_drops": sum(row["queue_drops"] for row in r.summary["links"]),
        "realtime": tm["realtime"],
        "loop_cpu": tm["cpu"],
        "load_avg": float(load),
        "machine_busy": (busy1 - busy0) / max(total1 - total0, 1),
    }


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--rates", type=int, nargs="+", default=[10, 50, 100, 200, 400])
    p.add_argument("--seconds", type=float, default=5.0)
    p.add_argument("--repeat", type=int, default=2)
    p.add_argument("--no-pin", dest="pin", action="store_false", help="leave the loop unbound")
    args = p.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as d:
        for rate in args.rates:
            for _ in range(args.repeat):
                row = one(rate, args.seconds, Path(d), args.pin)
                rows.append(row)
                print(" ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                               for k, v in row.items()), file=sys.stderr, flush=True)  # fmt: skip
    print(
        "| wireless / wired (Mbps) | goodput (Mbps) | p99 lag (ms) | max lag (ms) | late > 1 ms "
        "| stalls | packets forwarded/s | loop CPU (s/s) | CPU per forwarded packet (µs: "
        "user + system) | Linux rtx | queue drops | load avg | machine busy |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for rate in args.rates:
        pick = [r for r in rows if r["rate_mbps"] == rate]

        def m(key: str, pick: list[dict[str, Any]] = pick) -> float:
            return statistics.fmean(r[key] for r in pick)

        print(
            f"| {rate} / {10 * rate} | {m('goodput_mbps'):.1f} | {m('p99_ms'):.3f} | "
            f"{max(r['max_ms'] for r in pick):.2f} | {m('late_share'):.2%} | "
            f"{m('stalls'):.1f} | {m('forwarded_per_s'):.0f} | {m('cpu_per_s'):.2f} | "
            f"{m('us_per_forwarded'):.1f} ({m('us_user_per_forwarded'):.1f} + "
            f"{m('us_system_per_forwarded'):.1f}) | {m('retransmits'):.0f} | "
            f"{m('queue_drops'):.0f} | {m('load_avg'):.1f} | {m('machine_busy'):.0%} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
