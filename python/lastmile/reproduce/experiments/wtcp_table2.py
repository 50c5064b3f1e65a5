"""WTCP Table II: one WTCP connection beside 20 tcp connections on a congested wired link.

K. Ratnam and I. Matta, "WTCP: An Efficient Mechanism for Improving Wireless Access to TCP
Services" (seed ``001_*``), §7 and Table II. Base scenario ``wtcp_table2.toml``: 20 Tahoe
connections fixed host → gateway (the base station) and one WTCP-served Tahoe connection
fixed host → mobile host share a 1 Mbps wired link whose drop-tail buffer is 50, 100 or
800 packets; windows are fixed at 10 packets. Per buffer: the tcp connections' mean
throughput and the wtcp connection's, with WTCP's local recovery time (LRT) excluded
from the source's RTT samples (timestamp rewriting) and included (no rewriting), beside
the paper's twelve numbers; Jain's fairness index over the 21 connections.

Choices the paper leaves open (Fig. 10, the topology, is an image): the wired latency
and the wireless link are Fig. 3's and Table I's (100 ms; 800 kbps, 10 ms, the two-state
channel with mean Good 1 s); the mean Bad period is 100 ms (the setting §5 names for
Fig. 5), with 10 ms as a second series; "excluding LRT" is the most recent timestamp
(``recent``, the method Figs. 6-7 use, needing no knowledge of the source's clock), with
exact rewriting as a second series.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from lastmile.reproduce.framework import (
    Campaign,
    Context,
    Experiment,
    Published,
    Stat,
    clearly_above,
    paper_marks,
    scaled,
)
from lastmile.reproduce.words import hull, ratio_band, written

if TYPE_CHECKING:
    import pandas as pd

SCENARIO = "wtcp_table2.toml"
SRC = "WTCP §7, Table II"
BUFFER = "topology.wired.queue"
FWD_BAD = "topology.wireless.errors.mean_bad"
REV_BAD = "topology.wireless.reverse_errors.mean_bad"
BUFFERS = ("50pkt", "100pkt", "800pkt")
#: The bottleneck's fair share: 1 Mbps over 21 connections, in kbps.
FAIR_SHARE_KBPS = 1000.0 / 21

VARIANTS: dict[str, dict[str, Any]] = {
    "excl": {"base_station.wtcp.timestamps": "recent"},
    "excl_exact": {"base_station.wtcp.timestamps": "exact"},
    "incl": {"base_station.wtcp.timestamps": "none"},
}
LABELS = {
    "excl": "LRT excluded (most recent timestamp)",
    "excl_exact": "LRT excluded (exact residence time)",
    "incl": "LRT included (no rewriting)",
}
#: Table II (kbps): buffer → (tcp excl., tcp incl., wtcp excl., wtcp incl.).
PAPER = {
    "50pkt": (48.68, 49.36, 16.44, 6.12),
    "100pkt": (48.48, 49.20, 21.20, 9.28),
    "800pkt": (47.96, 47.92, 36.96, 37.36),
}
#: Why a wtcp run may stall (checked on two of them with a capture of the wired link).
STALL = (
    "The source's back-off against wired congestion, which WTCP does not touch (it recovers "
    "wireless losses only): drop-tail lock-out (RFC 2309 §2). The 50-packet buffer is kept "
    "full by the 20 ACK-clocked tcp connections (5.3 % of the packets offered to it are "
    "dropped), and a retransmission sent off their ACK clock finds no room again and again. "
    "Buffer 50, Bad 100 ms, seed 1, most recent timestamp: the source sent the segment at "
    "offset 225600 at 98.69, 111.4, 137.0 and 188.2 s (RTO doubling), and a capture of the "
    "wired link (`pcap = wired`) holds only the last copy. Buffer 50, Bad 10 ms, seed 3: the "
    "segment at offset 61440 was sent 8 times from 39.1 to 140.7 s and no copy is in the "
    "capture; its neighbours at 59520 and 60480 are, once each. Back-off, not a deadlock."
)

#: Failing claims about hiding the residence time wait for this work on another branch.
WTCP_PENDING = (
    " Why hiding the residence time gains our wtcp connection so little (the wireless "
    "window counted from the ACK point or in flight, timers at exact times or on clock "
    "ticks, the wired side) is being run down on the `wtcp` branch; this claim is to be "
    "read again after it merges."
)

Q_GAIN = (
    "The results show that, by excluding LRT, wtcp achieves throughput gain of up to 265%, "
    "with insignificant loss of tcp throughput."
)
Q_FAIR = (
    "We also show that the technique of hiding the local recovery time significantly "
    "improves the performance of WTCP-enabled connections without exceeding their fair "
    "share of the bottleneck bandwidth."
)
Q_CONFIRM = (
    "This confirms the effectiveness of WTCP in hiding wireless losses *without* unfairly "
    "grabbing bandwidth from other regular TCP connections."
)


def _bad(quick: bool) -> list[str]:
    return ["100ms"] if quick else ["100ms", "10ms"]


def _derive(runs: pd.DataFrame) -> dict[str, pd.Series]:
    """The wired buffer's drop rate: drops / packets offered to it."""
    drops = runs["link0_queue_drops"].astype(float)
    return {"wired_drop_rate": drops / (runs["link0_frames_sent"].astype(float) + drops)}


def campaigns(quick: bool) -> Sequence[Campaign]:
    bad = _bad(quick)
    return [
        Campaign(
            "table2",
            SCENARIO,
            4 if quick else 10,
            grid={BUFFER: list(BUFFERS)},
            zip={FWD_BAD: bad, REV_BAD: bad},
            variants=VARIANTS,
            axes={"buffer": BUFFER, "bad": FWD_BAD},
            derive=_derive,
            metrics=(
                "throughput_bps",
                "groups_tcp_throughput_bps_mean",
                "fairness_jain_index",
                "groups_tcp_jain_index",
                "tcp_timeouts",
                "agent_residence_mean_s",
                "agent_occupancy_max_bytes",
                "delay_mean_s",
                "wired_drop_rate",
            ),
            mechanisms=tuple(VARIANTS),
            finite=False,
            paper_stalls=dict.fromkeys(VARIANTS, STALL),
        )
    ]


def _kbps(ctx: Context, metric: str, variant: str, buffer: str, bad: str = "100ms") -> Stat:
    return scaled(ctx["table2"].value(metric, variant, buffer=buffer, bad=bad), 1e-3)


def _tcp(ctx: Context, variant: str, buffer: str, bad: str = "100ms") -> Stat:
    return _kbps(ctx, "groups_tcp_throughput_bps_mean", variant, buffer, bad)


def _wtcp(ctx: Context, variant: str, buffer: str, bad: str = "100ms") -> Stat:
    return _kbps(ctx, "throughput_bps", variant, buffer, bad)


def _compare(ctx: Context) -> None:
    data = ctx["table2"]
    for buffer in BUFFERS:
        tcp_ex, tcp_in, wtcp_ex, wtcp_in = PAPER[buffer]
        b = buffer.removesuffix("pkt")
        for name, variant, paper in (("excluded", "excl", tcp_ex), ("included", "incl", tcp_in)):
            ctx.compare(
                f"buffer {b}: tcp (mean of 20), LRT {name}",
                SRC,
                "kbps",
                paper,
                _tcp(ctx, variant, buffer),
                "Bad 100 ms; ours counts payload (960 B of 1 KB)",
                ref=f"Table II buffer {b} tcp {name}",
            )
        for name, variant, paper in (("excluded", "excl", wtcp_ex), ("included", "incl", wtcp_in)):
            ctx.compare(
                f"buffer {b}: wtcp, LRT {name}",
                SRC,
                "kbps",
                paper,
                _wtcp(ctx, variant, buffer),
                "Bad 100 ms; ours counts payload (960 B of 1 KB)",
                ref=f"Table II buffer {b} wtcp {name}",
            )
        ctx.compare(
            f"buffer {b}: wtcp, LRT excluded by exact residence time",
            SRC,
            "kbps",
            None,
            _wtcp(ctx, "excl_exact", buffer),
            "the other rewriting; the paper names none for Table II",
        )
        ctx.compare(
            f"buffer {b}: Jain's index over the 21 connections, LRT excluded",
            SRC,
            "index",
            None,
            data.value("fairness_jain_index", "excl", buffer=buffer, bad="100ms"),
            "the paper gives throughputs only",
        )
        ctx.compare(
            f"buffer {b}: the base station's largest occupancy, LRT included",
            SRC,
            "bytes",
            None,
            data.value("agent_occupancy_max_bytes", "incl", buffer=buffer, bad="100ms"),
            "the paper: 'no buffer overflow at the base station'; the 9600 B window bounds "
            "it, below WTCP's 20 KB buffer",
        )
        ctx.compare(
            f"buffer {b}: wired buffer drop rate, LRT excluded",
            SRC,
            "%",
            None,
            scaled(data.value("wired_drop_rate", "excl", buffer=buffer, bad="100ms"), 100.0),
            "packets dropped / offered to the 1 Mbps link",
        )


def _evidence(ctx: Context, buffer: str) -> str:
    """Where ours and the paper part, and the wtcp connection's timeouts and residence."""
    data = ctx["table2"]
    b = buffer.removesuffix("pkt")
    parts = []
    for v in ("excl", "incl"):
        timeouts = data.value("tcp_timeouts", v, buffer=buffer, bad="100ms").mean
        residence = data.value("agent_residence_mean_s", v, buffer=buffer, bad="100ms").mean
        parts.append(
            f"{LABELS[v]}: {timeouts:.0f} source timeouts per run, {1e3 * residence:.0f} ms "
            "mean residence at the base station"
        )
    ex, inc = _wtcp(ctx, "excl", buffer).mean, _wtcp(ctx, "incl", buffer).mean
    paper_ex, paper_inc = PAPER[buffer][2], PAPER[buffer][3]
    return (
        f"At buffer {b} our wtcp with LRT excluded gets {ex:.1f} kbps (the paper "
        f"{paper_ex:.2f}), but with LRT included {inc:.1f} kbps where the paper's falls to "
        f"{paper_inc:.2f}: our source loses little by seeing the residence time. "
        + "; ".join(parts)
        + ": the source times out about as often either way, although rewriting lowers its "
        "RTO (finding 'Does hiding the residence time lower the source's RTO?'). Our RTO "
        "keeps the RTT deviation exact where the paper's ns rounds it to 100 ms ticks (the "
        "wtcp experiment's finding 'Fig. 5's RTO floor'); we have not run an ns-style "
        "estimator in this set-up."
    )


def claim_gain(ctx: Context) -> None:
    gains = {b: _wtcp(ctx, "excl", b).mean / _wtcp(ctx, "incl", b).mean for b in BUFFERS}
    paper_gains = {b: PAPER[b][2] / PAPER[b][3] for b in BUFFERS}
    band = hull(written("265%").scaled(0.01), ratio_band("16.44", "6.12"))
    best = max(gains.values())
    ctx.claim(
        "Excluding LRT gives wtcp a throughput gain of up to 265 %",
        SRC,
        band.holds(best),
        ", ".join(f"buffer {b.removesuffix('pkt')}: {g:.2f}x" for b, g in gains.items())
        + " (wtcp excluded / included; the paper's table: "
        + ", ".join(f"{g:.2f}x" for g in paper_gains.values())
        + ")",
        quote=Q_GAIN,
        band="the largest wtcp throughput ratio LRT excluded / included over the three "
        f"buffers ('up to') {band.describe('x')}: the text's '265%' read as a ratio, and the "
        "table's best row",
        explanation=lambda: _evidence(ctx, "50pkt") + WTCP_PENDING,
    )


def claim_tcp_loss(ctx: Context) -> None:
    losses = {b: (_tcp(ctx, "excl", b), _tcp(ctx, "incl", b)) for b in BUFFERS}
    ctx.claim(
        "Excluding LRT costs the tcp connections no significant throughput",
        SRC,
        not any(clearly_above(incl, excl) for excl, incl in losses.values()),
        "; ".join(
            f"buffer {b.removesuffix('pkt')}: tcp {excl} kbps excluded, {incl} kbps included"
            for b, (excl, incl) in losses.items()
        ),
        quote=Q_GAIN,
        band="at every buffer the tcp mean with LRT excluded is not below the one with LRT "
        "included beyond the 95 % intervals ('insignificant loss')",
        explanation="The tcp connections lose throughput beyond the intervals when WTCP "
        "hides its residence time: see the buffers named in the detail.",
    )


def claim_improves(ctx: Context) -> None:
    improved = {b: (_wtcp(ctx, "excl", b), _wtcp(ctx, "incl", b)) for b in BUFFERS[:2]}
    ctx.claim(
        "Hiding LRT significantly improves the wtcp connection's throughput (buffers 50 and "
        "100, where Table II shows a gain)",
        "WTCP §8, Table II",
        all(clearly_above(ex, inc) for ex, inc in improved.values()),
        lambda: (
            "; ".join(
                f"buffer {b.removesuffix('pkt')}: {ex} kbps excluded, {inc} kbps included"
                for b, (ex, inc) in improved.items()
            )
            + "; exact residence time: "
            + ", ".join(f"{_wtcp(ctx, 'excl_exact', b)} kbps" for b in BUFFERS[:2])
        ),
        quote=Q_FAIR,
        band="wtcp with LRT excluded above wtcp with LRT included, 95 % intervals apart, at "
        "buffers 50 and 100 ('significantly')",
        explanation=lambda: _evidence(ctx, "100pkt") + WTCP_PENDING,
    )


def claim_fair_share(ctx: Context) -> None:
    share = {b: _wtcp(ctx, "excl", b) for b in BUFFERS}
    ctx.claim(
        "wtcp with LRT excluded does not exceed its fair share of the 1 Mbps bottleneck",
        "WTCP §7-8, Table II",
        all(s.mean <= FAIR_SHARE_KBPS for s in share.values()),
        ", ".join(f"buffer {b.removesuffix('pkt')}: {s} kbps" for b, s in share.items())
        + f" (fair share 1 Mbps / 21 = {FAIR_SHARE_KBPS:.1f} kbps)",
        quote=Q_FAIR + " [...] " + Q_CONFIRM,
        band=f"the wtcp mean with LRT excluded at most {FAIR_SHARE_KBPS:.1f} kbps (1 Mbps / 21 "
        "connections) at every buffer ('without exceeding their fair share')",
        explanation="The wtcp connection gets more than 1/21 of the link at the buffers named "
        "in the detail.",
    )


def _findings(ctx: Context) -> None:
    data = ctx["table2"]
    if "10ms" in _bad(ctx.quick):
        rows = [
            f"buffer {b.removesuffix('pkt')}: "
            + ", ".join(
                f"{v} {_wtcp(ctx, v, b, '10ms').mean:.1f} (Bad 100 ms: {_wtcp(ctx, v, b).mean:.1f})"
                for v in VARIANTS
            )
            for b in BUFFERS
        ]
        ctx.finding(
            "The Bad period (wtcp kbps at mean Bad 10 ms).",
            "; ".join(rows) + ". Table II does not name its channel; with shorter fades the "
            "base station holds segments for less time and the three timestamp settings "
            "come closer still.",
        )
    jain = {b: data.value("groups_tcp_jain_index", "excl", buffer=b, bad="100ms") for b in BUFFERS}
    ctx.finding(
        "Fairness among the 20 tcp connections.",
        "Jain's index over the 20 tcp connections' throughputs (LRT excluded, Bad 100 ms): "
        + ", ".join(f"buffer {b.removesuffix('pkt')}: {j}" for b, j in jain.items())
        + ". With the small buffers the drop-tail queue, kept full by ACK-clocked "
        "connections, drops unevenly among them (a phase effect of drop-tail gateways); "
        "with 800 packets nothing is dropped and each connection is held by its own 10 "
        "packet window.",
    )


def _source_rto(ctx: Context) -> dict[tuple[str, str], tuple[float, float]]:
    """The wtcp source's mean RTO and mean RTT sample (s) per variant at buffers 50 and
    100, Bad 100 ms, over the first seeds (the ``rtt`` trace; the store keeps summaries)."""
    import numpy as np

    seeds = range(1, 3 if ctx.quick else 6)
    wtcp_flow = 20  # the last entry's flow, after the 20 tcp connections
    out = {}
    for buffer in BUFFERS[:2]:
        for v, overrides in VARIANTS.items():
            rto, sample = [], []
            for seed in seeds:
                run = ctx.run_traced(SCENARIO, seed, {BUFFER: buffer, **overrides}, ["rtt"])
                trace = run.trace("rtt")
                mine = trace[trace["flow"] == wtcp_flow]
                rto.append(float(mine["rto_s"].mean()))
                sample.append(float(mine["sample_s"].mean()))
            out[(buffer, v)] = (float(np.mean(rto)), float(np.mean(sample)))
    return out


def _rto_finding(ctx: Context, rto: dict[tuple[str, str], tuple[float, float]]) -> None:
    rows = [
        f"buffer {b.removesuffix('pkt')}: "
        + ", ".join(
            f"{LABELS[v]} RTO {rto[(b, v)][0]:.2f} s (RTT samples {rto[(b, v)][1]:.2f} s, "
            f"throughput {_wtcp(ctx, v, b).mean:.1f} kbps)"
            for v in VARIANTS
        )
        for b in BUFFERS[:2]
    ]
    ctx.finding(
        "Does hiding the residence time lower the source's RTO?",
        "The wtcp source's mean RTO and mean RTT sample over its run (`rtt` trace, Bad "
        f"100 ms, seeds 1-{2 if ctx.quick else 5}; throughput over all seeds): "
        + "; ".join(rows)
        + ". Rewriting does what the paper wants of it: the source sees shorter RTT samples "
        "and keeps a smaller RTO. The throughput follows only partly. We read this as: "
        "the base station recovers the wireless losses, so the source's timeouts answer "
        "drops at the full wired buffer, where a retransmission risks being dropped again "
        "(see the integrity table), and the time spent in back-off, more than the first "
        "RTO, decides the throughput.",
    )


def _figure(ctx: Context) -> None:
    import numpy as np

    x = np.arange(len(BUFFERS))
    with ctx.figure(
        "table2",
        "WTCP Table II: tcp (mean of 20) and wtcp throughput per wired buffer, Bad 100 ms; "
        "bars: 95 % CI; squares: the paper",
        2,
    ) as (a, b):
        for ax, who, col in ((a, "tcp (mean of 20)", 0), (b, "wtcp", 2)):
            get = _tcp if col == 0 else _wtcp
            for k, v in enumerate(VARIANTS):
                stats = [get(ctx, v, buf) for buf in BUFFERS]
                ax.errorbar(
                    x + (k - 1) * 0.12,
                    [s.mean for s in stats],
                    yerr=[s.ci for s in stats],
                    marker="o",
                    linestyle="",
                    capsize=3,
                    label=LABELS[v],
                )
            for off, name, color in ((0, "excluded", "C0"), (1, "included", "C2")):
                paper_marks(
                    ax,
                    x + (-1 if off == 0 else 1) * 0.12,
                    [PAPER[buf][col + off] for buf in BUFFERS],
                    f"paper, LRT {name}",
                    markeredgecolor=color,
                )
            ax.set_xticks(x, [buf.removesuffix("pkt") for buf in BUFFERS])
            ax.set_xlabel("wired buffer (packets)")
            ax.set_ylabel("throughput (kbps)")
            ax.set_title(who, fontsize="small")


def analyse(ctx: Context) -> None:
    _compare(ctx)
    _findings(ctx)
    _rto_finding(ctx, _source_rto(ctx))
    _figure(ctx)


EXPERIMENT = Experiment(
    name="wtcp-table2",
    title="WTCP Table II: wtcp beside 20 tcp connections on a congested wired link",
    paper="K. Ratnam and I. Matta, WTCP (seed 001), §7, Table II",
    description=(
        "20 Tahoe connections fixed host → gateway and one WTCP-served Tahoe connection "
        "fixed host → mobile host share a 1 Mbps, 100 ms wired link with a drop-tail buffer "
        "of 50, 100 or 800 packets; the last hop is Fig. 3's fading 800 kbps link; windows "
        "of 10 packets, 200 s runs. The tcp connections' mean throughput and the wtcp "
        "connection's, with the base station's local recovery time hidden from the source "
        "(timestamp rewriting) or not, beside Table II; Jain's index over the connections."
    ),
    differences=(
        "Table II's topology (Fig. 10) is an image, and §7 names only the wired rate, the "
        "buffers and the windows: the wired latency, the fading channel (mean Bad 100 ms, "
        "10 ms as a second series) and the Tahoe sources are Fig. 3's and Table I's, and "
        "'excluding LRT' is the most recent timestamp as in Figs. 6-7 (exact rewriting as "
        "a second series). As in our Fig. 5-6 reproduction, our RTO keeps the RTT "
        "deviation exact where the paper's ns rounds it to clock ticks. Our throughput "
        "counts payload, 960 of each 1000-byte segment; the paper's rows add up to 990-996 "
        "kbps on the 1 Mbps link, so it counts whole segments: that alone puts ours 4 % "
        "lower."
    ),
    campaigns=campaigns,
    analyse=analyse,
    seed="001",
    claims=(claim_gain, claim_tcp_loss, claim_improves, claim_fair_share),
    published=Published(
        points=[
            ("table2", metric, v, {"buffer": buffer, "bad": "100ms"}, kbps * 1e3)
            for buffer, row in PAPER.items()
            for metric, v, kbps in (
                ("groups_tcp_throughput_bps_mean", "excl", row[0]),
                ("groups_tcp_throughput_bps_mean", "incl", row[1]),
                ("throughput_bps", "excl", row[2]),
                ("throughput_bps", "incl", row[3]),
            )
        ]
    ),
    settings=(
        "The wired latency and the last hop (Fig. 10 is an image): Fig. 3's 100 ms and "
        "Table I's 800 kbps, 10 ms fading link, mean Bad 100 ms (the setting §5 names for "
        "Fig. 5); 10 ms runs as a second series.",
        "'Excluding LRT': the most recent timestamp, as in Figs. 6-7 (exact rewriting as a "
        "second series).",
    ),
)
