"""Model against reality (docs/emulation.md): Linux's Reno, CUBIC and BBR through the
emulated chain beside lastmile's simulated flow with the same algorithm on the same
scenario, and the seeds' question on real TCP (Snoop, TULIP, LLE-TCP against no agent).

The chain: fh -100 Mbps, 19 ms- bs -10 Mbps, 1 ms- mh (20 ms one way, a 10 Mbps
bottleneck on the wireless hop, whose 100-packet queue at the base station is three
bandwidth-delay products), every data frame bs -> mh lost with probability PER, ACKs
never. Linux (this machine's kernel, defaults: SACK, timestamps, window scaling, RACK-TLP,
CUBIC's HyStart, autotuned buffers) sends a SIZE bulk transfer with ``TCP_CONGESTION`` set;
lastmile's flow is configured as Linux runs by default wherever our model has the knob:
SACK recovery (RFC 6675) with D-SACK, limited transmit and PRR, RFC 6928's initial window
of 10, 1448-byte segments with timestamps (1500-byte packets like Linux's), delayed ACKs
(40 ms, Linux's minimum) with byte counting L = 2, a 200 ms minimum RTO, a 1 ms clock, an
ample window, pacing for BBR only. Goodput = bytes x 8 / (last byte delivered - first
byte sent), both sides.

Agents (``--agents``): CUBIC, PER 0.01 / 0.05 / 0.1, Linux and lastmile's CUBIC set as
above, each mechanism against its own baseline on its own MAC: Snoop over the
point-to-point hop above; TULIP as the hop's link layer (FAMA-NCS, its paper's MAC)
against the same MAC without it; LLE-TCP on an 802.11b DCF cell (``wlan``, 11 Mbps)
against the same cell without it.

    sudo python validation/emulation.py [--runs 5] [--size 10MB] [--agents]
        [--side linux|model] [--resume]
    sudo python validation/emulation.py --runs 3 --size 4MB
        --ablate CC[@HOP[+AGENT]]:PER:SETTING ...
    python validation/emulation.py --report

Writes ``validation/results/emulation*.csv`` and ``.md``, and ``docs/emulation.png``.
"""

from __future__ import annotations

import argparse
import csv
import math
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

import lastmile
from lastmile.emulate import emulate
from lastmile.sweep.stats import t_quantile

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "validation" / "results"

CCS = ("reno", "cubic", "bbr")
PERS = (0.0, 0.001, 0.01, 0.05)
AGENT_PERS = (0.01, 0.05, 0.1)

CHAIN = """
name = "emulation-chain"
seed = {seed}
stop_time = "600s"
[topology]
preset = "chain"
wired = {{ rate = "100Mbps", delay = "19ms", queue = "1000pkt" }}
wireless = {{ {wireless}, queue = "100pkt", errors = {{ model = "per", per = {per} }} }}
[base_station]
agent = "{agent}"
[[flow]]
src = "fh"
dst = "mh"
tcp = {tcp}
app = {{ kind = "bulk", bytes = "{size}" }}
"""

WLAN = """
name = "emulation-wlan"
seed = {seed}
stop_time = "600s"
[topology]
preset = "wlan"
mobiles = 1
wired = {{ rate = "100Mbps", delay = "19ms", queue = "1000pkt" }}
wireless = {{ rate = "11Mbps", delay = "1us", mac = {{ kind = "dcf", phy = "802.11b" }},
             queue = "100pkt", errors = {{ model = "per", per = {per} }} }}
[base_station]
agent = "{agent}"
node = "ap"
[[flow]]
src = "fh"
dst = "mh1"
tcp = {tcp}
app = {{ kind = "bulk", bytes = "{size}" }}
"""


def linux_like_tcp(cc: str) -> str:
    """lastmile's TCP set as Linux runs by default, where the model has the knob."""
    pacing = "true" if cc == "bbr" else "false"
    return (
        f'{{ recovery = "sack", cc = "{cc}", mss = "1448B", rwnd = "6MB", '
        'initial_window = 10, timestamps = true, ack = "delayed", delack_timeout = "40ms", '
        "dsack = true, limited_transmit = true, prr = true, rack = true, "
        'keep_sack_after_timeout = true, abc = 2, min_rto = "200ms", '
        f'initial_rto = "1s", timer_granularity = "1ms", pacing = {pacing} }}'
    )


def scenario(
    tmp: Path, *, cc: str, per: float, seed: int, size: str, agent: str = "none", hop: str = "p2p"
) -> Path:
    template = WLAN if hop == "dcf" else CHAIN
    # A cell's MAC needs microseconds of propagation and a DSSS rate (802.11b's 11 Mbps).
    cell = 'rate = "11Mbps", delay = "1us", mac = { kind = "fama", phy = "802.11b" }'
    wireless = {
        "p2p": 'rate = "10Mbps", delay = "1ms"',
        "fama": cell,
        "tulip": cell + ', link = "tulip"',
    }
    text = template.format(
        seed=seed,
        per=per,
        agent=agent,
        tcp=linux_like_tcp(cc),
        size=size,
        wireless=wireless.get(hop, wireless["p2p"]),
    )
    path = tmp / f"{hop}-{agent}-{cc}-{per}-{seed}.toml"
    path.write_text(text)
    return path


def load_average() -> float:
    """The machine's one-minute load average (other sessions share its two cores)."""
    return float(Path("/proc/loadavg").read_text().split()[0])


def run_linux(path: Path, cc: str, sysctls: Sequence[str] = ()) -> dict[str, Any]:
    r = emulate(path, cc=cc, sysctls=sysctls)
    (t,) = r.transfers
    if "error" in t or not t["verified"]:
        raise RuntimeError(f"{path.name}: transfer failed: {t}")
    info = t["tcp_info"]
    return {
        "goodput_bps": t["goodput_bps"],
        "completion_s": t["transfer_s"],
        "retransmits": info.get("total_retrans", 0),
        "timeouts": t.get("mib", {}).get("TcpExtTCPTimeouts", 0),
        "loss_probes": t.get("mib", {}).get("TcpExtTCPLossProbes", 0),
        "hystart_exits": t.get("mib", {}).get("TcpExtTCPHystartTrainDetect", 0)
        + t.get("mib", {}).get("TcpExtTCPHystartDelayDetect", 0),
        "lag_p99_s": r.timing["lag"]["p99_s"],
        "lag_max_s": r.timing["lag"]["max_s"],
        "late_events": r.timing["lag"]["late_events"],
        "frames_lost": (r.summary.get("wireless") or {}).get("frames_lost"),
        "load_avg": load_average(),
    }


def run_model(path: Path) -> dict[str, Any]:
    summary = lastmile.run(path).summary
    (f,) = summary["flows"]
    f = {**f, "frames_lost": (summary.get("wireless") or {}).get("frames_lost")}
    return {
        "goodput_bps": 8 * f["bytes_delivered"] / f["completion_s"],
        "completion_s": f["completion_s"],
        "retransmits": f["tcp_retransmits"],
        "timeouts": f["tcp_timeouts"],
        "loss_probes": None,
        "hystart_exits": None,
        "lag_p99_s": None,
        "lag_max_s": None,
        "late_events": None,
        "frames_lost": f.get("frames_lost"),
        "load_avg": None,
    }


def mean_ci(values: Sequence[float]) -> tuple[float, float]:
    m = statistics.fmean(values)
    if len(values) < 2:
        return m, 0.0
    return m, t_quantile(0.975, len(values) - 1) * statistics.stdev(values) / math.sqrt(len(values))


def append_row(name: str, row: dict[str, Any]) -> None:
    """Adds `row` to RESULTS/<name>.partial.csv as soon as it is measured (an interrupted
    campaign keeps what it ran)."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.partial.csv"
    new = not path.exists()
    with path.open("a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(row))
        if new:
            w.writeheader()
        w.writerow(row)


def write_rows(name: str, rows: list[dict[str, Any]]) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.csv"
    with path.open("w", newline="") as f:
        fields = list(dict.fromkeys(k for r in rows for k in r))
        w = csv.DictWriter(f, fieldnames=fields, restval="")
        w.writeheader()
        w.writerows(rows)
    (RESULTS / f"{name}.partial.csv").unlink(missing_ok=True)
    return path


def read_partial(name: str) -> dict[tuple[str, ...], dict[str, Any]]:
    """The rows an interrupted campaign wrote to RESULTS/<name>.partial.csv, by the
    point each measures (``--resume`` keeps them and runs the rest)."""
    path = RESULTS / f"{name}.partial.csv"
    if not path.exists():
        return {}
    with path.open() as f:
        return {point_of(r): dict(r) for r in csv.DictReader(f)}


def point_of(row: dict[str, Any]) -> tuple[str, ...]:
    """What a row measures: side, algorithm or hop and agent, PER, seed."""
    keys = ("side", "cc", "hop", "agent", "per", "seed")
    return tuple(str(row[k]) for k in keys if k in row)


def campaign(
    name: str,
    points: Sequence[tuple[dict[str, Any], Path, str]],
    sides: Sequence[str],
    resume: bool,
) -> list[dict[str, Any]]:
    """Each point (its labels, its scenario, Linux's algorithm) measured on `sides`;
    the other side's rows are kept from the last campaign's CSV, and with `resume` the
    rows an interrupted run of this campaign measured are kept, not measured again."""
    # Rows written before the model side was added to a campaign are Linux's.
    rows: list[dict[str, Any]] = [r for r in read_rows(name) if r.get("side", "linux") not in sides]
    done = read_partial(name) if resume else {}
    if not resume:
        (RESULTS / f"{name}.partial.csv").unlink(missing_ok=True)
    for labels, path, cc in points:
        for side in sides:
            key = point_of({"side": side, **labels})
            if key in done:
                rows.append(done[key])
                continue
            t0 = time.monotonic()
            run = run_linux(path, cc) if side == "linux" else run_model(path)
            row = {"side": side, **labels, **run}
            rows.append(row)
            append_row(name, row)
            print(
                f"{side:5} {cc:5} {' '.join(f'{k} {v}' for k, v in labels.items())}: "
                f"{row['goodput_bps'] / 1e6:6.2f} Mbps, {row['retransmits']} rtx "
                f"({time.monotonic() - t0:.1f} s, load {load_average():.2f})",
                file=sys.stderr,
                flush=True,
            )
    return rows


def model_vs_linux(
    tmp: Path, runs: int, size: str, sides: Sequence[str], resume: bool
) -> list[dict[str, Any]]:
    """Linux and the model with the same algorithm at every (PER, algorithm, seed)."""
    points = [
        (
            {"cc": cc, "per": per, "seed": seed},
            scenario(tmp, cc=cc, per=per, seed=seed, size=size),
            cc,
        )
        for per in PERS
        for cc in CCS
        for seed in range(1, runs + 1)
    ]
    return campaign("emulation", points, sides, resume)


AGENT_SETS = (
    ("p2p", "none"),
    ("p2p", "snoop"),
    ("fama", "none"),
    ("tulip", "none"),
    ("dcf", "none"),
    ("dcf", "lle"),
)


def agents(
    tmp: Path, runs: int, size: str, sides: Sequence[str], resume: bool
) -> list[dict[str, Any]]:
    """Linux's CUBIC through each hop and agent, and lastmile's CUBIC (set as Linux runs)
    on the same scenario beside it."""
    points = [
        (
            {"hop": hop, "agent": agent, "per": per, "seed": seed},
            scenario(tmp, cc="cubic", per=per, seed=seed, size=size, agent=agent, hop=hop),
            "cubic",
        )
        for per in AGENT_PERS
        for hop, agent in AGENT_SETS
        for seed in range(1, runs + 1)
    ]
    return campaign("emulation-agents", points, sides, resume)


#: Linux with features turned off: (per-namespace sysctls, HyStart on). HyStart is a
#: parameter of the tcp_cubic module, global to the machine: it is turned off for those
#: runs only and put back (the host's own default congestion control here is BBR).
ABLATIONS: dict[str, tuple[tuple[str, ...], bool]] = {
    "defaults": ((), True),
    "no RACK (tcp_recovery=0)": (("net.ipv4.tcp_recovery=0",), True),
    "no TLP (tcp_early_retrans=0)": (("net.ipv4.tcp_early_retrans=0",), True),
    "no RACK, no TLP": (("net.ipv4.tcp_recovery=0", "net.ipv4.tcp_early_retrans=0"), True),
    "no F-RTO (tcp_frto=0)": (("net.ipv4.tcp_frto=0",), True),
    "no SACK (tcp_sack=0)": (("net.ipv4.tcp_sack=0",), True),
    "no timestamps (tcp_timestamps=0)": (("net.ipv4.tcp_timestamps=0",), True),
    "RTO floor 1 ms (tcp_rto_min_us=1000)": (("net.ipv4.tcp_rto_min_us=1000",), True),
    "RTO floor 1 ms, no F-RTO": (
        ("net.ipv4.tcp_rto_min_us=1000", "net.ipv4.tcp_frto=0"),
        True,
    ),
    "HyStart off": ((), False),
    "HyStart off, RTO floor 1 ms": (("net.ipv4.tcp_rto_min_us=1000",), False),
    "HyStart off, no RACK, no TLP": (
        ("net.ipv4.tcp_recovery=0", "net.ipv4.tcp_early_retrans=0"),
        False,
    ),
}

HYSTART = Path("/sys/module/tcp_cubic/parameters/hystart")


def with_hystart(on: bool, run: Any) -> Any:
    """`run()` with CUBIC's HyStart set to `on`, the machine's setting put back after."""
    before = HYSTART.read_text().strip() if HYSTART.exists() else None
    if before is None or (before == "1") == on:
        return run()
    HYSTART.write_text("1" if on else "0")
    try:
        return run()
    finally:
        HYSTART.write_text(before)


def ablate(
    tmp: Path, runs: int, size: str, points: Sequence[tuple[str, float, str]]
) -> list[dict[str, Any]]:
    rows = []
    for where, per, label in points:
        sysctls, hystart = ABLATIONS[label]
        cc, _, hop_agent = where.partition("@")
        hop, _, agent = hop_agent.partition("+")
        for seed in range(1, runs + 1):
            path = scenario(
                tmp, cc=cc, per=per, seed=seed, size=size, hop=hop or "p2p", agent=agent or "none"
            )
            row: dict[str, Any] = {"cc": where, "per": per, "setting": label, "seed": seed}
            row.update(with_hystart(hystart, partial(run_linux, path, cc, sysctls)))
            rows.append(row)
            append_row("emulation-ablations", row)
            print(
                f"linux {cc:5} PER {per:<5} {label:30} seed {seed}: "
                f"{row['goodput_bps'] / 1e6:6.2f} Mbps, {row['retransmits']} rtx, "
                f"{row['timeouts']} RTOs, {row['loss_probes']} TLPs, "
                f"{row['hystart_exits']} HyStart exits",
                file=sys.stderr,
                flush=True,
            )
    return rows


def read_rows(name: str) -> list[dict[str, str]]:
    path = RESULTS / f"{name}.csv"
    if not path.exists():
        return []
    with path.open() as f:
        return list(csv.DictReader(f))


def _mbps(values: Sequence[float]) -> str:
    m, ci = mean_ci(values)
    return f"{m / 1e6:.2f} ± {ci / 1e6:.2f}"


def report_model_vs_linux(rows: list[dict[str, str]]) -> list[str]:
    """The table of Linux against the model, one row per (algorithm, PER)."""
    lines = [
        "| algorithm | PER | Linux goodput (Mbps) | model goodput (Mbps) | gap | Linux rtx "
        "| model rtx | Linux RTOs | model RTOs |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for cc in CCS:
        for per in PERS:
            pick = [r for r in rows if r["cc"] == cc and float(r["per"]) == per]
            linux = [float(r["goodput_bps"]) for r in pick if r["side"] == "linux"]
            model = [float(r["goodput_bps"]) for r in pick if r["side"] == "model"]
            if not linux or not model:
                continue
            gap = (statistics.fmean(model) - statistics.fmean(linux)) / statistics.fmean(linux)
            rtx, rto = (
                {
                    side: statistics.fmean(float(r[key] or 0) for r in pick if r["side"] == side)
                    for side in ("linux", "model")
                }
                for key in ("retransmits", "timeouts")
            )
            flag = " **>15 %**" if abs(gap) > 0.15 else ""
            lines.append(
                f"| {cc} | {per} | {_mbps(linux)} | {_mbps(model)} | {gap:+.0%}{flag} | "
                f"{rtx['linux']:.0f} | {rtx['model']:.0f} | {rto['linux']:.1f} | "
                f"{rto['model']:.1f} |"
            )
    return lines


HOP_NAMES = {
    "p2p": "point-to-point",
    "fama": "FAMA-NCS",
    "tulip": "FAMA-NCS + TULIP",
    "dcf": "802.11b DCF",
}
#: Each set's baseline: the same MAC without the mechanism.
BASELINE = {"p2p": ("p2p", "none"), "tulip": ("fama", "none"), "dcf": ("dcf", "none")}


def report_agents(rows: list[dict[str, str]]) -> list[str]:
    """Linux's CUBIC (and lastmile's beside it) per hop, agent and PER, each mechanism
    against its baseline."""
    lines = [
        "| hop | agent | PER | Linux CUBIC (Mbps) | against its baseline | lastmile CUBIC (Mbps) "
        "| against its baseline | Linux rtx | frames lost |",
        "|---|---|---|---|---|---|---|---|---|",
    ]

    def goodputs(side: str, hop: str, agent: str, per: float) -> list[float]:
        return [
            float(r["goodput_bps"])
            for r in rows
            if r.get("side", "linux") == side
            and (r["hop"], r["agent"]) == (hop, agent)
            and float(r["per"]) == per
        ]

    for per in AGENT_PERS:
        for hop, agent in AGENT_SETS:
            base = BASELINE.get(hop, (hop, "none"))
            cells = []
            for side in ("linux", "model"):
                pick = goodputs(side, hop, agent, per)
                against = ""
                ref = goodputs(side, *base, per)
                if pick and ref and (hop, agent) != base:
                    against = f"{statistics.fmean(pick) / statistics.fmean(ref) - 1:+.0%}"
                cells += [_mbps(pick) if pick else "-", against]
            linux = [
                r
                for r in rows
                if r.get("side", "linux") == "linux"
                and (r["hop"], r["agent"]) == (hop, agent)
                and float(r["per"]) == per
            ]
            if not linux:
                continue
            rtx = statistics.fmean(float(r["retransmits"]) for r in linux)
            lost = statistics.fmean(float(r["frames_lost"] or 0) for r in linux)
            lines.append(
                f"| {HOP_NAMES[hop]} | {agent} | {per} | {' | '.join(cells)} | {rtx:.0f} "
                f"| {lost:.0f} |"
            )
    return lines


def report_ablations(rows: list[dict[str, str]]) -> list[str]:
    lines = [
        "| algorithm | PER | Linux setting | goodput (Mbps) | rtx | RTOs | TLPs | HyStart exits |",
        "|---|---|---|---|---|---|---|---|",
    ]
    seen: list[tuple[str, str, str]] = []
    for r in rows:
        key = (r["cc"], r["per"], r["setting"])
        if key not in seen:
            seen.append(key)

    def mean(pick: list[dict[str, str]], key: str) -> str:
        values = [float(r[key]) for r in pick if r.get(key) not in (None, "")]
        return f"{statistics.fmean(values):.0f}" if values else "-"

    for cc, per, setting in seen:
        pick = [r for r in rows if (r["cc"], r["per"], r["setting"]) == (cc, per, setting)]
        good = [float(r["goodput_bps"]) for r in pick]
        lines.append(
            f"| {cc} | {per} | {setting} | {_mbps(good)} | {mean(pick, 'retransmits')} | "
            f"{mean(pick, 'timeouts')} | {mean(pick, 'loss_probes')} | "
            f"{mean(pick, 'hystart_exits')} |"
        )
    return lines


def figure(rows: list[dict[str, str]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(11, 3.4), sharey=True)
    for ax, cc in zip(axes, CCS, strict=True):
        for side, style in (("linux", "o-"), ("model", "s--")):
            xs, ms, cis = [], [], []
            for i, per in enumerate(PERS):
                vals = [
                    float(r["goodput_bps"]) / 1e6
                    for r in rows
                    if r["cc"] == cc and r["side"] == side and float(r["per"]) == per
                ]
                if vals:
                    m, ci = mean_ci(vals)
                    xs.append(i)
                    ms.append(m)
                    cis.append(ci)
            label = "Linux (emulated chain)" if side == "linux" else "lastmile model"
            ax.errorbar(xs, ms, yerr=cis, fmt=style, capsize=3, label=label)
        ax.set_xticks(range(len(PERS)), [str(p) for p in PERS])
        ax.set_title(cc.upper() if cc != "reno" else "Reno")
        ax.set_xlabel("packet error rate of the wireless hop")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("goodput (Mbps)")
    axes[0].legend(loc="lower left", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def report() -> str:
    parts = []
    main_rows = read_rows("emulation")
    if main_rows:
        parts += ["## Model against Linux", "", *report_model_vs_linux(main_rows), ""]
        figure(main_rows, ROOT / "docs" / "emulation.png")
    agent_rows = read_rows("emulation-agents")
    if agent_rows:
        parts += ["## Agents on real TCP", "", *report_agents(agent_rows), ""]
    ablation_rows = read_rows("emulation-ablations")
    if ablation_rows:
        parts += ["## Linux features turned off", "", *report_ablations(ablation_rows), ""]
    text = "\n".join(parts)
    (RESULTS / "emulation.md").write_text(text)
    return text


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--size", default="10MB")
    p.add_argument("--agents", action="store_true", help="the agents' comparison instead")
    p.add_argument(
        "--ablate",
        nargs="+",
        metavar="CC[@HOP[+AGENT]]:PER:SETTING",
        help="Linux with features off, on the chain or on an agents' hop (cubic@dcf+lle); "
        f"SETTING one of: {'; '.join(ABLATIONS)}",
    )
    p.add_argument(
        "--side",
        choices=("linux", "model"),
        help="run one side of the comparison only, keeping the other's rows from the CSV",
    )
    p.add_argument(
        "--resume",
        action="store_true",
        help="keep the rows an interrupted campaign wrote to its .partial.csv, run the rest",
    )
    p.add_argument("--report", action="store_true", help="tables and figure from the CSVs")
    args = p.parse_args(argv)
    if args.report:
        print(report())
        return 0
    tmp = Path(tempfile.mkdtemp(prefix="lastmile-emulation-"))
    if args.ablate is not None:
        points = []
        for a in args.ablate:
            cc, per, label = a.split(":", 2)
            points.append((cc, float(per), label))
        rows = read_rows("emulation-ablations") + ablate(tmp, args.runs, args.size, points)
        print(write_rows("emulation-ablations", rows), file=sys.stderr)
    else:
        sides = (args.side,) if args.side else ("linux", "model")
        run = agents if args.agents else model_vs_linux
        name = "emulation-agents" if args.agents else "emulation"
        rows = run(tmp, args.runs, args.size, sides, args.resume)
        print(write_rows(name, rows), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
