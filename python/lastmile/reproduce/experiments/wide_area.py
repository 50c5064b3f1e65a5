"""Mechanisms x networks: each mechanism's gain over TCP alone on six wireless networks.

K. Pentikousis, "TCP in wired-cum-wireless environments" (seed ``003_*``), §2.1-2.5, the
Appendix (the networks) and §5 (the conclusion). Base scenarios
``wide_area_bulk.toml`` (100 KB to the mobile) and ``wide_area_web.toml`` (ten 3 KB objects
fetched by the mobile, 1 s think time).

- Mechanisms: TCP (NewReno) alone, Snoop, TULIP, I-TCP, LLE-TCP (only over 802.11b's DCF:
  it generates ACKs from the MAC's acknowledgements), the WTCP-Sinha proxy, and a WAP
  gateway (request/response only: WTP carries transactions, not streams).
- Networks: the presets ``802.11b``, ``hiperlan2`` (the wireless LANs), ``umts_384``,
  ``gprs``, ``cdpd`` and ``gsm`` (9.6 kbps; the wireless WANs), each with its preset's link
  layer and error model (``docs/wwan.md``). TULIP replaces the preset's link layer.
- Gain: bulk, throughput over TCP alone's; request/response, TCP alone's mean object time
  over the mechanism's (above 1 is better in both). The heat map draws both.

Second part (``_wtcp_sinha``, campaign ``cdpd``): WTCP-Sinha against NewReno and Vegas
end to end on a CDPD-like link, against the channel's mean Bad period.

The survey's claims tested: Snoop "may not achieve superior performance when these RTTs are
large", "TCP NewReno with snoop does not yield better performance in wireless WAN
scenarios" (Sinha et al., as the survey reports them), and "solutions proposed for wireless
LANs do not perform well in wireless WANs and vice versa"; WTCP "was shown [56] to perform
better than TCP NewReno [24] and TCP Vegas [48], at least under certain scenarios".
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

from lastmile.reproduce.experiments import _wtcp_sinha
from lastmile.reproduce.framework import Campaign, Context, Experiment, Stat, ratio
from lastmile.reproduce.words import not_clearly_above

SRC = "Survey §2.1"
PRESET = "topology.wireless.preset"
WLANS = ("802.11b", "hiperlan2")
WWANS = ("umts_384", "gprs", "cdpd", "gsm")
NETWORKS = (*WLANS, *WWANS)
NET_LABELS = {
    "802.11b": "802.11b",
    "hiperlan2": "HIPERLAN/2",
    "umts_384": "UMTS 384",
    "gprs": "GPRS",
    "cdpd": "CDPD",
    "gsm": "GSM 9.6",
}
ITCP_TCP = {
    "base_station.itcp.tcp.recovery": "newreno",
    "base_station.itcp.tcp.mss": "536B",
}
MECHANISMS: dict[str, dict[str, Any]] = {
    "tcp": {},
    "snoop": {"base_station.agent": "snoop"},
    "tulip": {"topology.wireless.link": "tulip"},
    "itcp": {"base_station.agent": "itcp", **ITCP_TCP},
    "lle": {"base_station.agent": "lle"},
    "wtcp_sinha": {"base_station.agent": "wtcp_sinha", "flow.0.transport": "wtcp_sinha"},
    "wap": {"base_station.agent": "wap", "flow.0.transport": "wap"},
}
LABELS = {
    "tcp": "TCP alone",
    "snoop": "Snoop",
    "tulip": "TULIP",
    "itcp": "I-TCP",
    "lle": "LLE-TCP",
    "wtcp_sinha": "WTCP-Sinha",
    "wap": "WAP",
}
#: Solutions the survey presents for wireless LANs (link-level, short wireless RTTs) and
#: for wireless WANs (WTCP-Sinha: "designed ... for CDPD"; WAP: "rather limited data rates
#: ... and high latencies").
WLAN_SOLUTIONS = ("snoop", "tulip")
WWAN_SOLUTIONS = ("wtcp_sinha", "wap")
#: What running LLE-TCP with request/response found (a bug, since fixed).
LLE_TWO_WAY = (
    "Running LLE-TCP with request/response on 802.11b first delivered nothing: the agent "
    "cleared the ACK flag of piggybacked ACKs that acknowledge nothing new (LLE-TCP §3.2's "
    "words), which is every request the mobile sends before the first object, so the fixed "
    "host dropped them (RFC 9293: a segment without ACK is dropped in a synchronized state). "
    "The agent now sets such an ACK to the last number it generated, which acknowledges "
    "nothing new and is accepted; both workloads run (`docs/models/lle.md`)."
)
#: Why WTCP-Sinha gains on the wireless LANs (runs made to find out).
WTCP_SINHA_ON_WLANS = (
    "WTCP-Sinha's gain on the WLANs is not loss repair. On 802.11b (bulk), TCP alone's runs "
    "with no retransmission take 0.55-0.67 s (seeds 1-3) and WTCP-Sinha's runs with no local "
    "retransmission 0.38-0.40 s (seeds 2-3): the proxy's TCP advertises its 64 KB buffer to "
    "the fixed host where TCP alone has the mobile's 16 KiB window over the 40 ms wired "
    "round trip, and the wireless side starts at its packet-pair rate without slow start "
    "(`lastmile run --json wide_area_bulk.toml --seed 2 --set "
    "topology.wireless.preset=802.11b`, then with `--set base_station.agent=wtcp_sinha "
    "--set flow.0.transport=wtcp_sinha`). The WLAN solutions' part of the claim (Snoop and "
    "TULIP at most 1 on the WWANs) is the detail's first half."
)
#: The I-TCP stall on HIPERLAN/2 this experiment found (a MAC bug, since fixed).
ITCP_HIPERLAN_STALL = (
    "Running this experiment found a MAC bug, since fixed: I-TCP on HIPERLAN/2, bulk, seed "
    "3 stalled for the whole run because, after a lost SYN-ACK, the base station's SYN "
    "retransmission and the mobile's SYN-ACK retransmission started at the same instant at "
    'every backed-off timeout and were both lost, 29 times. The preset\'s `mac = "ideal"` '
    "let two frames queued at the same instant on a long-idle medium both start at once; it "
    "now gives each station its own slot of a round after the medium falls idle "
    "(`wireless/mac/ideal.rs`), and the run completes."
)
WORKLOADS = {"bulk": "wide_area_bulk.toml", "web": "wide_area_web.toml"}

Q_SNOOP_RTT = (
    "However, snoop was designed for small RTTs in the wireless part of the path so it may "
    "not achieve superior performance when these RTTs are large."
)
Q_SNOOP_WAN = (
    "Indeed, Sinha et al. found that TCP NewReno [24] with snoop does not yield better "
    "performance in wireless WAN scenarios [56]."
)
Q_LAN_WAN = (
    "For example, solutions proposed for wireless LANs do not perform well in wireless WANs "
    "and vice versa."
)


def applies(mechanism: str, network: str, workload: str) -> bool:
    """LLE-TCP needs the DCF's per-frame outcome (802.11b here); WAP carries transactions
    only."""
    if mechanism == "lle":
        return network == "802.11b"
    if mechanism == "wap":
        return workload == "web"
    return True


def campaigns(quick: bool) -> Sequence[Campaign]:
    out = []
    for workload, scenario in WORKLOADS.items():
        for net in NETWORKS:
            mechs = [m for m in MECHANISMS if applies(m, net, workload)]
            out.append(
                Campaign(
                    name=f"{workload}-{net}",
                    scenario=scenario,
                    seeds=2 if quick else 10,
                    variants={m: {PRESET: net, **MECHANISMS[m]} for m in mechs},
                    metrics=(
                        ("throughput_bps", "completion_s", "tcp_timeouts")
                        if workload == "bulk"
                        else ("object_time_mean_s", "completion_s", "objects_completed")
                    ),
                    mechanisms=[m for m in mechs if m != "tcp"],
                )
            )
    out.append(_wtcp_sinha.campaign(quick))
    return out


def gain(ctx: Context, workload: str, mechanism: str, net: str) -> Stat | None:
    """The mechanism's gain over TCP alone (above 1: better); None where it does not apply."""
    if not applies(mechanism, net, workload):
        return None
    data = ctx[f"{workload}-{net}"]
    if workload == "bulk":
        return ratio(data.value("throughput_bps", mechanism), data.value("throughput_bps", "tcp"))
    return ratio(
        data.value("object_time_mean_s", "tcp"), data.value("object_time_mean_s", mechanism)
    )


def _mean_gain(gains: dict[tuple[str, str], Stat | None], mech: str, nets: Sequence[str]) -> float:
    values = [g.mean for n in nets if (g := gains[(mech, n)]) is not None]
    return sum(values) / len(values) if values else math.nan


def _fmt(gains: dict[tuple[str, str], Stat | None], mech: str, nets: Sequence[str]) -> str:
    return ", ".join(
        f"{NET_LABELS[n]} {g.mean:.2f}x" for n in nets if (g := gains[(mech, n)]) is not None
    )


def _gains(ctx: Context, workload: str) -> dict[tuple[str, str], Stat | None]:
    return {(m, n): gain(ctx, workload, m, n) for m in MECHANISMS for n in NETWORKS}


def claim_snoop_rtt(ctx: Context) -> None:
    gains = _gains(ctx, "bulk")
    wlan = _mean_gain(gains, "snoop", WLANS)
    wwan = _mean_gain(gains, "snoop", WWANS)
    ctx.claim(
        "Snoop gains less over TCP alone on the wireless WANs (large wireless RTTs) than "
        "on the wireless LANs",
        SRC,
        wwan < wlan,
        f"bulk, Snoop's throughput over TCP alone's: {_fmt(gains, 'snoop', NETWORKS)}; "
        f"mean over the WLANs {wlan:.2f}x, over the WWANs {wwan:.2f}x",
        quote=Q_SNOOP_RTT,
        band="Snoop's mean gain over the four WWANs below its mean gain over the two WLANs "
        "(bulk workload)",
        explanation="The detail gives Snoop's gain per network; the numbers table their "
        "95 % intervals.",
    )


def claim_snoop_wan(ctx: Context) -> None:
    gains = _gains(ctx, "bulk")
    above = [
        n
        for n in WWANS
        if not not_clearly_above(
            ctx[f"bulk-{n}"].value("throughput_bps", "snoop"),
            ctx[f"bulk-{n}"].value("throughput_bps", "tcp"),
        )
    ]
    ctx.claim(
        "NewReno with Snoop is no better than NewReno alone on any wireless WAN",
        SRC,
        not above,
        f"bulk, Snoop's throughput over NewReno alone's: {_fmt(gains, 'snoop', WWANS)}",
        quote=Q_SNOOP_WAN,
        band="on every WWAN (UMTS 384, GPRS, CDPD, GSM 9.6), Snoop's throughput not above "
        "NewReno alone's beyond the 95 % intervals ('does not yield better performance': "
        "not clearly better)",
        explanation="Snoop is clearly above NewReno on "
        + ", ".join(f"{NET_LABELS[n]} ({gains[('snoop', n)]}x)" for n in above)
        + ".",
    )


def _lan_wan_claim(ctx: Context, workload: str) -> None:
    gains = _gains(ctx, workload)
    lan_on_wan = {m: _mean_gain(gains, m, WWANS) for m in WLAN_SOLUTIONS}
    wan_on_lan = {
        m: _mean_gain(gains, m, WLANS) for m in WWAN_SOLUTIONS if applies(m, WLANS[0], workload)
    }
    good = [m for m, g in {**lan_on_wan, **wan_on_lan}.items() if g > 1.0]
    ctx.claim(
        f"{workload}: the WLAN solutions do not beat TCP alone on the WWANs, nor the WWAN "
        "solutions on the WLANs",
        "Survey §5",
        not good,
        "mean gain on the WWANs: "
        + ", ".join(f"{LABELS[m]} {g:.2f}x" for m, g in lan_on_wan.items())
        + "; on the WLANs: "
        + ", ".join(f"{LABELS[m]} {g:.2f}x" for m, g in wan_on_lan.items()),
        quote=Q_LAN_WAN,
        band="the mean gain over TCP alone of Snoop and TULIP across the four WWANs, and of "
        "WTCP-Sinha (and WAP) across the two WLANs, each at most 1 ('do not perform well')",
        explanation="Above 1: " + ", ".join(LABELS[m] for m in good) + ". " + WTCP_SINHA_ON_WLANS,
    )


def _heatmap(ctx: Context, gains: dict[str, dict[tuple[str, str], Stat | None]]) -> None:
    import numpy as np

    with ctx.figure(
        "heatmap",
        "Gain over TCP alone (bulk: throughput ratio; request/response: object time "
        "ratio; above 1 is better), per mechanism and network; each cell a mean over the "
        "seeds, without error bars (the numbers table gives the 95 % intervals)",
        ncols=2,
    ) as axes:
        for ax, workload in zip(axes, WORKLOADS, strict=True):
            mechs = [m for m in MECHANISMS if any(applies(m, n, workload) for n in NETWORKS)]
            grid = np.full((len(mechs), len(NETWORKS)), np.nan)
            for i, m in enumerate(mechs):
                for j, n in enumerate(NETWORKS):
                    g = gains[workload][(m, n)]
                    if g is not None:
                        grid[i, j] = g.mean
            image = ax.imshow(np.log2(grid), cmap="RdBu", vmin=-2, vmax=2, aspect="auto")
            for i in range(len(mechs)):
                for j in range(len(NETWORKS)):
                    text = "n/a" if np.isnan(grid[i, j]) else f"{grid[i, j]:.2f}"
                    ax.text(j, i, text, ha="center", va="center", fontsize="x-small")
            ax.set_xticks(range(len(NETWORKS)), [NET_LABELS[n] for n in NETWORKS], rotation=30)
            ax.set_yticks(range(len(mechs)), [LABELS[m] for m in mechs])
            ax.set_title("bulk (100 KB)" if workload == "bulk" else "request/response")
            ax.grid(False)
            ax.figure.colorbar(image, ax=ax, label="log2 gain")


def analyse(ctx: Context) -> None:
    gains = {
        w: {(m, n): gain(ctx, w, m, n) for m in MECHANISMS for n in NETWORKS} for w in WORKLOADS
    }
    for w in WORKLOADS:
        for n in NETWORKS:
            for m in MECHANISMS:
                g = gains[w][(m, n)]
                if g is not None and m != "tcp":
                    ctx.compare(f"{w} {LABELS[m]} on {NET_LABELS[n]}", "gain", "x", None, g)
    ctx.finding("LLE-TCP with request/response (fixed)", LLE_TWO_WAY)
    ctx.finding("I-TCP on HIPERLAN/2 stalled at one seed (fixed)", ITCP_HIPERLAN_STALL)
    _heatmap(ctx, gains)
    _wtcp_sinha.analyse(ctx)


EXPERIMENT = Experiment(
    name="wide-area",
    title="Mechanisms x networks on WLANs and WWANs; WTCP-Sinha against NewReno and Vegas",
    paper="K. Pentikousis, TCP in wired-cum-wireless environments (2000), §2, §5, Appendix",
    description=(
        "TCP NewReno alone, Snoop, TULIP, I-TCP, LLE-TCP (802.11b only), the WTCP-Sinha proxy "
        "and a WAP gateway (request/response only) on six network presets (802.11b, "
        "HIPERLAN/2, UMTS 384, GPRS, CDPD, GSM 9.6), with a 100 KB bulk transfer and ten "
        "3 KB objects fetched one after another; 5 seeds. The gain is each mechanism's "
        "throughput (bulk) or inverse mean object time (request/response) over TCP alone's. "
        "Second part: 100 KB over a CDPD hop (19.2 kbps raw, Reed-Solomon (63,47), 250 ms "
        "one way, two-state channel with mean Good 10 s and mean Bad 50 ms, 200 ms or 1 s) "
        "with NewReno end to end, Vegas end to end and the WTCP-Sinha proxy; 10 seeds."
    ),
    differences=(
        "The survey gives no scenario for these claims: the path (a 10 Mbps / 20 ms wire), "
        "the workloads and every network's latency, link layer and channel are our choices "
        "(each preset names its sources in docs/wwan.md). The presets with link ARQ (GSM's "
        "RLP, the RLC of GPRS and UMTS) hide most channel losses from every mechanism above "
        "them; TULIP replaces that link layer. Sinha et al.'s measurements are not in our "
        "seeds; their findings are tested as the survey reports them. Our WTCP-Sinha follows "
        "the survey's description (receiver-controlled rate from inter-packet delay, "
        "loss-cause prediction, SACK, probes instead of a retransmission timer) with our own "
        "thresholds (docs/models/wap-wtcp-sinha.md)."
    ),
    campaigns=campaigns,
    analyse=analyse,
    seed="003",
    claims=(
        claim_snoop_rtt,
        claim_snoop_wan,
        functools.partial(_lan_wan_claim, workload="bulk"),
        functools.partial(_lan_wan_claim, workload="web"),
        _wtcp_sinha.claim,
    ),
    settings=(
        "Every scenario is ours (the survey gives none): the path, the workloads and each "
        "network's latency, link layer and channel (the presets, docs/wwan.md).",
    ),
)
