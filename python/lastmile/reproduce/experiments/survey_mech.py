"""Survey §2 mechanisms: Snoop with and without SACK, delayed duplicate ACKs, ELN, EBSN,
and the ACK-generation strategies.

K. Pentikousis, "TCP in wired-cum-wireless environments", IEEE Communications Surveys
(2000), §2.1.1 (Snoop, "the use of a selective acknowledgement scheme improves
performance"), §2.1.2.2 (DDA, "almost equivalently to snoop", not on slow links, the open
optimum of d), §2.4.4.1 (Allman's ACK strategies), §2.4.4.4 (ELN); EBSN (Bakshi et al.,
ICDCS 1997) as the design notes describe it, since the survey does not discuss it.

The survey gives no set-up. Base scenario ``survey_mech.toml``: a 10 Mbps / 20 ms wire and
a 2 Mbps radio under an ideal MAC (no MAC retries), Reno, 1 MB; data frames corrupted with
probability `per`. Each mechanism is a variant: Snoop at the base station; Snoop reading the
mobile's SACK blocks (the mobile's TCP offers SACK, the sender stays Reno); DDA's link layer
with the delayed duplicate ACKs on the mobile (d = 100 ms); ELN (the mobile marks the ACKs
asking for a segment its radio received corrupted; the sender retransmits without reducing
its window). The slow-link campaign swaps the radio for 19.2 kbps (CDPD's raw rate, the
survey's Appendix) and 536-byte segments. EBSN runs over a Gilbert-Elliott channel whose bad
periods (mean 2 s) outlast the source's 1 s RTO, with a persistent in-order link layer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from lastmile.reproduce.framework import (
    Campaign,
    Context,
    Experiment,
    Published,
    Stat,
    clearly_above,
    errorbars,
)
from lastmile.reproduce.words import not_clearly_above, similar, written

PER = "topology.wireless.errors.per"
RATES = (0.01, 0.03, 0.1)


def _agent(node: str, **agent: Any) -> dict[str, Any]:
    return {"base_station": [{"node": node, "agent": agent}]}


SNOOP = _agent("bs", kind="snoop")
MECHS: dict[str, dict[str, Any]] = {
    "reno": {},
    "snoop": SNOOP,
    "snoop_sack": {**_agent("bs", kind="snoop", sack=True), "flow.0.tcp.sack": True},
    "dda": {**_agent("mh", kind="dda", d="100ms"), "topology.wireless.link": "dda"},
    "eln": {**_agent("mh", kind="eln"), "flow.0.tcp.eln": True},
}
SLOW = {
    "topology.wireless.rate": "19.2kbps",
    "flow.0.tcp.mss": "536B",
    "flow.0.app.bytes": "100KB",
}
D_VALUES = ("0ms", "5ms", "10ms", "20ms", "50ms", "100ms", "500ms")
#: The frame error rate of the d sweep: often enough that a repair is itself lost.
D_PER = 0.1
ACKS: dict[str, dict[str, Any]] = {
    "every": {"flow.0.tcp.ack": "every"},
    "delayed": {"flow.0.tcp.ack": "delayed"},
    "daass": {"flow.0.tcp.ack": "daass"},
    "lbc": {"flow.0.tcp.ack": "delayed", "flow.0.tcp.abc": 2},
    "ubc": {"flow.0.tcp.ack": "delayed", "flow.0.tcp.abc": 255},
}
#: Short flows for the ACK strategies (the claim is read at the first).
ACK_SIZES = ("20KB", "100KB", "1MB")
METRICS = (
    "window_cuts",
    "completion_s",
    "throughput_bps",
    "tcp_timeouts",
    "tcp_retransmits",
    "tcp_fast_retransmits",
)

Q_SNOOP = (
    "TCP Reno with snoop has been shown to achieve a lot better performance than, both TCP "
    "Reno alone, and other end-to-end protocols [9]."
)
Q_SACK = (
    "Moreover, the authors demonstrated that the use of a selective acknowledgement scheme "
    "improves performance."
)
Q_DDA = (
    "Nevertheless, it seems that under certain conditions it can perform well, almost "
    "equivalently to snoop."
)
Q_SNOOP_WAN = (
    "Indeed, Sinha et al. found that TCP NewReno [24] with snoop does not yield better "
    "performance in wireless WAN scenarios [56]."
)
Q_DDA_SLOW = (
    "This scheme works well, according to the authors, in cases where snoop works well too, "
    "thus it will not perform well on slow wireless links."
)
Q_ELN = (
    "If it were possible to explicitly indicate when a particular loss is due to errors "
    "induced by the wireless link, then TCP could be modified so as to refrain from going "
    "into congestion avoidance."
)
Q_ACK28 = "In particular, for short flows the improvement is 28%."
Q_DAASS = (
    "DAASS also improves TCP throughput, and achieves exactly the same results for short "
    "flows with acknowledging of every segment mentioned above, since in this case the "
    "algorithms are the same."
)
Q_UBC = "However, it proves to be too aggressive and may lead to worse performance."
Q_LBC = (
    "On the other hand, limited byte counting (LBC), where the total increase in `cwnd` "
    "limited to 2 SMSS, seems to improve the performance, but not as much as acknowledging "
    "every segment and DAASS."
)


def _derive(df: pd.DataFrame) -> Mapping[str, pd.Series]:
    """Window reductions per run: fast retransmits plus timeouts."""
    return {"window_cuts": df["tcp_fast_retransmits"] + df["tcp_timeouts"]}


def campaigns(quick: bool) -> Sequence[Campaign]:
    seeds = 3 if quick else 10
    mechs = ("snoop", "snoop_sack", "dda", "eln")
    return [
        Campaign(
            name="wlan",
            scenario="survey_mech.toml",
            seeds=2 * seeds,
            grid={PER: list(RATES)},
            variants=MECHS,
            axes={"per": PER},
            metrics=METRICS,
            derive=_derive,
            mechanisms=mechs,
        ),
        Campaign(
            name="slow",
            scenario="survey_mech.toml",
            seeds=seeds,
            grid={PER: [0.03]},
            variants={k: {**SLOW, **v} for k, v in MECHS.items() if k in ("reno", "snoop", "dda")},
            axes={"per": PER},
            metrics=(*METRICS, "agent_local_retransmissions", "agent_timer_expiries"),
            mechanisms=("snoop", "dda"),
        ),
        Campaign(
            name="d",
            scenario="survey_mech.toml",
            seeds=seeds,
            grid={PER: [D_PER], "base_station.0.agent.d": list(D_VALUES)},
            variants={"dda": MECHS["dda"]},
            axes={"per": PER, "d": "base_station.0.agent.d"},
            metrics=(*METRICS, "agent_timer_expiries", "agent_dupacks_delayed"),
            mechanisms=("dda",),
        ),
        Campaign(
            name="ebsn",
            scenario="survey_mech_ebsn.toml",
            seeds=seeds,
            variants={
                "reno": {"flow.0.tcp.ebsn": False},
                "ebsn": {"flow.0.tcp.ebsn": True},
            },
            metrics=METRICS,
            mechanisms=("ebsn",),
        ),
        Campaign(
            name="acks",
            scenario="survey_mech.toml",
            seeds=seeds,
            grid={"flow.0.app.bytes": list(ACK_SIZES)},
            variants=ACKS,
            axes={"bytes": "flow.0.app.bytes"},
            metrics=METRICS,
        ),
    ]


def _tput(ctx: Context, campaign: str, variant: str, **where: Any) -> Stat:
    return ctx[campaign].value("throughput_bps", variant, **where)


def _kbps(s: Stat) -> str:
    return f"{s.mean / 1e3:.0f} ± {s.ci / 1e3:.0f} kbps"


def _overlap(name_a: str, name_b: str, t: Mapping[tuple[str, float], Stat], a: str, b: str) -> str:
    """Where `a`'s throughput is not clearly above `b`'s: the rates and both intervals."""
    weak = [p for p in RATES if not clearly_above(t[(a, p)], t[(b, p)])]
    return (
        f"{name_a} is not clearly above {name_b} at per "
        + ", ".join(f"{p:g} ({_kbps(t[(a, p)])} vs {_kbps(t[(b, p)])})" for p in weak)
        + f"; {t[(a, RATES[0])].n} seeds per point."
    )


def claims_wlan(ctx: Context) -> None:
    t = {(v, p): _tput(ctx, "wlan", v, per=p) for v in MECHS for p in RATES}
    per_rate = "; ".join(
        f"per {p:g}: " + ", ".join(f"{v} {_kbps(t[(v, p)])}" for v in MECHS) for p in RATES
    )
    ctx.claim(
        "Reno with Snoop does clearly better than Reno alone at every error rate",
        "Survey §2.1.1",
        all(clearly_above(t[("snoop", p)], t[("reno", p)]) for p in RATES),
        per_rate,
        quote=Q_SNOOP,
        band="Snoop's mean throughput above Reno's with disjoint 95 % intervals at each rate "
        "('a lot better' is not quantified)",
        explanation=_overlap("Snoop", "Reno", t, "snoop", "reno"),
    )
    ctx.claim(
        "Snoop reading SACK blocks improves on Snoop",
        "Survey §2.1.1",
        all(t[("snoop_sack", p)].mean >= t[("snoop", p)].mean for p in RATES)
        and any(clearly_above(t[("snoop_sack", p)], t[("snoop", p)]) for p in RATES),
        ", ".join(
            f"per {p:g}: {_kbps(t[('snoop_sack', p)])} vs {_kbps(t[('snoop', p)])}" for p in RATES
        ),
        quote=Q_SACK,
        band="Snoop+SACK's mean at or above Snoop's at every rate, clearly above at one or more",
        explanation=(
            "With one loss per window, Snoop's own duplicate-ACK rule already repairs it; SACK "
            "can only help when a window loses several segments (the highest rate). "
            + _overlap("Snoop+SACK", "Snoop", t, "snoop_sack", "snoop")
        ),
    )
    close = [p for p in RATES if similar(t[("dda", p)].mean, t[("snoop", p)].mean)]
    ctx.claim(
        "DDA performs almost equivalently to Snoop (within 10 %) under some conditions",
        "Survey §2.1.2.2",
        bool(close),
        ", ".join(
            f"per {p:g}: DDA {_kbps(t[('dda', p)])}, Snoop {_kbps(t[('snoop', p)])}" for p in RATES
        )
        + f"; within 10 % at {', '.join(f'{p:g}' for p in close) or 'none'}",
        quote=Q_DDA,
        band="DDA's mean throughput within 10 % of Snoop's at one rate or more ('almost "
        "equivalently', 'under certain conditions')",
        explanation="DDA and Snoop differ by more than 10 % at every rate (the detail): "
        "their repairs take different times on this path.",
    )

    def cuts(v: str, p: float) -> Stat:
        return ctx["wlan"].value("window_cuts", v, per=p)

    faster = {p: clearly_above(t[("eln", p)], t[("reno", p)]) for p in RATES}
    fewer = {p: clearly_above(cuts("reno", p), cuts("eln", p)) for p in RATES}
    slower_at = [f"{p:g}" for p in RATES if not faster[p]]
    ctx.claim(
        "ELN: the sender retransmits wireless losses without reducing its window, and does "
        "clearly better than Reno",
        "Survey §2.4.4.4",
        all(faster.values()) and all(fewer.values()),
        ", ".join(
            f"per {p:g}: ELN {_kbps(t[('eln', p)])}, {cuts('eln', p)} window cuts; Reno "
            f"{_kbps(t[('reno', p)])}, {cuts('reno', p)}"
            for p in RATES
        ),
        quote=Q_ELN,
        band="at every rate ELN's throughput above Reno's and its window cuts (fast "
        "retransmits + timeouts) per run below Reno's, both with disjoint 95 % intervals",
        explanation=(
            "Window cuts: fewer at "
            + ("every rate" if all(fewer.values()) else "some rates only")
            + "; ELN's remaining cuts are timeouts: an ELN retransmission is sent once per "
            "hole (ns-2's rule), so when the channel corrupts it too only the timer recovers "
            "it. Throughput: not clearly above Reno at per "
            + (", ".join(slower_at) or "none")
            + ", where losses are rare enough that Reno's halvings cost little on a 42 ms "
            "RTT and the 95 % intervals overlap."
        ),
    )


def claims_slow(ctx: Context) -> None:
    fast = {v: _tput(ctx, "wlan", v, per=0.03) for v in ("reno", "snoop", "dda")}
    slow = {v: _tput(ctx, "slow", v, per=0.03) for v in ("reno", "snoop", "dda")}
    gain_fast = fast["dda"].mean / fast["reno"].mean
    gain_slow = slow["dda"].mean / slow["reno"].mean
    snoop_slow = slow["snoop"].mean / slow["reno"].mean
    ctx.claim(
        "DDA gains less over Reno on a slow wireless link than on the 2 Mbps one",
        "Survey §2.1.2.2",
        gain_slow < gain_fast,
        f"DDA / Reno throughput at per 0.03: {gain_fast:.2f}x on 2 Mbps, {gain_slow:.2f}x on "
        f"19.2 kbps (Snoop / Reno there {snoop_slow:.2f}x); slow link: "
        + ", ".join(f"{v} {_kbps(s)}" for v, s in slow.items()),
        quote=Q_DDA_SLOW,
        band="DDA's throughput gain over plain Reno smaller on the slow link",
        explanation=(
            "On the 19.2 kbps radio a 536-byte frame takes 0.22 s, so the link layer's "
            "repair is as slow as the end-to-end one there; the gains in the detail show "
            "which link favours DDA on our path."
        ),
    )
    local = ctx["slow"].value("agent_local_retransmissions", "snoop", per=0.03)
    expiries = ctx["slow"].value("agent_timer_expiries", "snoop", per=0.03)
    ctx.claim(
        "Snoop does not do better than the end-to-end TCP on a slow, long-RTT radio",
        "Survey §2.1.1",
        not_clearly_above(slow["snoop"], slow["reno"]),
        f"19.2 kbps, per 0.03: Snoop {_kbps(slow['snoop'])}, Reno {_kbps(slow['reno'])}; "
        f"Snoop's local retransmissions {local}, its timer expired {expiries} times per run",
        quote=Q_SNOOP_WAN,
        band="on the 19.2 kbps radio Snoop's throughput not clearly above plain Reno's "
        "(our TCP is Reno, the sentence's NewReno)",
        explanation=(
            f"Snoop's throughput is clearly above Reno's on the slow radio: {local} local "
            "retransmissions per run repaired its losses faster than the source could."
        ),
    )


Q_DDA_D = (
    "If the timer d expires then all duplicate ACKs are released and, probably, the TCP "
    "sender goes into Fast Retransmit."
)


def _d_stats(ctx: Context) -> tuple[dict[str, Stat], dict[str, Stat], dict[str, Stat]]:
    data = ctx["d"]

    def at(metric: str, d: str) -> Stat:
        return data.value(metric, "dda", per=D_PER, d=d)

    t = {d: at("completion_s", d) for d in D_VALUES}
    fr = {d: at("tcp_fast_retransmits", d) for d in D_VALUES}
    exp = {d: at("agent_timer_expiries", d) for d in D_VALUES}
    return t, fr, exp


def claim_dda_d(ctx: Context) -> None:
    _t, fr, exp = _d_stats(ctx)
    short, long = D_VALUES[1], D_VALUES[-1]
    ctx.claim(
        "When d expires the held duplicates are released and the sender fast-retransmits; "
        "a d longer than the link's repairs spares it",
        "Survey §2.1.2.2",
        exp[short].mean > 0
        and clearly_above(fr[short], fr[long])
        and clearly_above(exp[short], exp[long]),
        ", ".join(
            f"d {d}: {exp[d].mean:.1f} expiries, {fr[d].mean:.1f} fast retransmits"
            for d in D_VALUES
        ),
        quote=Q_DDA_D,
        band=f"at d = {short} d expires and the source's fast retransmits per run are "
        f"clearly (disjoint 95 % intervals) above those at d = {long}",
        explanation=(
            f"At d = {short}: {fr[short]} fast retransmits and {exp[short]} expiries per run "
            f"over {fr[short].n} seeds; at d = {long}: {fr[long]}. The direction holds; with "
            "few seeds the 95 % intervals are wide."
        ),
    )


def _d_analysis(ctx: Context) -> None:
    t, fr, exp = _d_stats(ctx)
    for d in D_VALUES:
        ctx.compare(
            f"DDA d = {d}: completion",
            "Survey §2.1.2.2",
            "s",
            None,
            t[d],
            f"{fr[d].mean:.1f} source fast retransmits, d expired {exp[d].mean:.1f} times",
        )
    with ctx.figure(
        "dda_d",
        f"DDA: the source's fast retransmits and the completion time of 1 MB against d "
        f"(frame error rate {D_PER:g}; bars: 95 % CI); the survey leaves the best d open",
        ncols=2,
    ) as (ax1, ax2):
        xs = [float(d.removesuffix("ms")) for d in D_VALUES]
        for ax, stats, label in (
            (ax1, fr, "source fast retransmits per run"),
            (ax2, t, "completion time (s)"),
        ):
            ax.errorbar(
                xs,
                [stats[d].mean for d in D_VALUES],
                yerr=[stats[d].ci for d in D_VALUES],
                fmt="o-",
            )
            ax.set_xscale("symlog", linthresh=5)
            ax.set_xlabel("d (ms)")
            ax.set_ylabel(label)


def _slow_finding(ctx: Context) -> None:
    expiries = ctx["slow"].value("agent_timer_expiries", "snoop", per=0.03)
    ctx.finding(
        "Snoop's timer on the 19.2 kbps radio",
        f"Snoop's timer expired {expiries.mean:.0f} times per 100 KB run (about 190 "
        "segments). Traced with `lastmile run --trace agent_rtt` (seed 1): its rtt samples "
        "have a median of 32 ms, while a 536-byte frame takes 0.22 s on the air. Snoop times "
        "a segment from the moment its frame has left the interface (the MAC's TxSuccess), so "
        "the sample holds the ACK's airtime but not the data frame's; its timer of 2 rtt "
        "(64 ms) then expires while each next frame is on the air, and every expiry "
        "queues a local retransmission behind frames that were never lost. On the 2 Mbps "
        "radio the 40 ms floor hides this. So the slow-link result is the survey's 'LL and "
        "TCP retransmissions interfere' made worse by how our Snoop times segments on a "
        "cell; timing from the start of the transmission would change every Snoop "
        "reproduction and is left to Snoop's owner.",
    )


def _ebsn_numbers(ctx: Context) -> None:
    """EBSN is not in the survey (no sentence to quote): its effect goes in as numbers."""
    data = ctx["ebsn"]
    src = "Issue 14 (Bakshi et al., ICDCS 1997; not in the survey)"
    for metric, unit in (
        ("tcp_timeouts", "timeouts"),
        ("tcp_retransmits", "segments"),
        ("completion_s", "s"),
    ):
        for v in ("reno", "ebsn"):
            ctx.compare(f"EBSN bad periods, {v}: {metric}", src, unit, None, data.value(metric, v))


def _ack_gains(ctx: Context) -> dict[str, float]:
    data = ctx["acks"]
    return {
        b: 100.0
        * (
            data.value("completion_s", "delayed", bytes=b).mean
            / data.value("completion_s", "every", bytes=b).mean
            - 1.0
        )
        for b in ACK_SIZES
    }


def claim_ack_28(ctx: Context) -> None:
    gain = ctx.quantity("ack_gain_20KB", lambda: _ack_gains(ctx)["20KB"])
    band = written("28%")

    def detail() -> str:
        t = {v: ctx["acks"].value("completion_s", v, bytes="20KB") for v in ("every", "delayed")}
        return (
            f"20 KB over a 42 ms RTT: every {t['every']} s, delayed {t['delayed']} s; "
            f"throughput gain {gain:+.1f} % (at "
            + ", ".join(f"{b} {g:+.1f} %" for b, g in _ack_gains(ctx).items())
            + ")"
        )

    def why() -> str:
        every = ctx["acks"].value("completion_s", "every", bytes="20KB")
        return (
            "The survey gives neither Allman's flow sizes nor his path. With an initial "
            "window of one segment the delayed-ACK receiver holds the first ACK for its "
            f"200 ms timer, which on our 42 ms RTT costs more than the whole ACK-every-"
            f"segment transfer of 20 KB ({every} s): the gain is {gain:.0f} %. It falls with "
            "the flow's size ("
            + ", ".join(f"{b}: {g:.0f} %" for b, g in _ack_gains(ctx).items())
            + "), so 28 % is a matter of the size and RTT Allman used."
        )

    ctx.claim(
        "For short flows ACK-every-segment improves on delayed ACKs by 28 %",
        "Survey §2.4.4.1 (Allman 1998)",
        band.holds(gain),
        detail,
        quote=Q_ACK28,
        band=f"delayed / every completion time of a 20 KB flow - 1 {band.describe('%')}",
        explanation=why,
    )


def claims_ack(ctx: Context) -> None:
    data = ctx["acks"]
    t = {v: data.value("completion_s", v, bytes="20KB") for v in ACKS}
    ctx.claim(
        "DAASS gives exactly the same results as ACK-every-segment for short flows",
        "Survey §2.4.4.1 (Allman 1998)",
        t["daass"].mean == t["every"].mean,
        f"DAASS {t['daass']} s, every {t['every']} s",
        quote=Q_DAASS,
        band="equal mean completion times ('exactly the same')",
        explanation=(
            "Our DAASS acknowledges every segment sent in slow start; a 20 KB flow from IW 1 "
            "stays there unless a loss ends it, so a difference comes from a run that left "
            "slow start (the detail's intervals)."
        ),
    )
    ctx.claim(
        "LBC improves on delayed ACKs, but less than ACK-every-segment and DAASS",
        "Survey §2.4.4.1 (Allman 1998)",
        t["delayed"].mean > t["lbc"].mean > max(t["every"].mean, t["daass"].mean),
        ", ".join(f"{v} {t[v]} s" for v in ACKS if v != "ubc"),
        quote=Q_LBC,
        band="completion: delayed > LBC > max(every, DAASS)",
        explanation=(
            "LBC (RFC 3465 with L = 2) grows cwnd by up to two segments per delayed ACK, as "
            "ACK-every-segment does per two ACKs; it cannot remove the delayed-ACK timer's "
            "wait on the first segment, which dominates a 20 KB flow (the detail)."
        ),
    )
    by_size = {
        b: (
            data.value("completion_s", "ubc", bytes=b),
            data.value("completion_s", "lbc", bytes=b),
        )
        for b in ACK_SIZES
    }
    ctx.claim(
        "Unlimited byte counting is too aggressive and may do worse than LBC",
        "Survey §2.4.4.1 (Allman 1998)",
        any(u.mean > lbc.mean for u, lbc in by_size.values()),
        ", ".join(f"{b}: UBC {u} s, LBC {lbc} s" for b, (u, lbc) in by_size.items()),
        quote=Q_UBC,
        band="UBC's mean completion time above LBC's for one flow size or more ('may lead "
        "to worse performance')",
        explanation=lambda: (
            "UBC (L = 255) and LBC (L = 2) differ only for an ACK that covers more than two "
            "segments, and only in slow start (RFC 3465 counts bytes the same way in "
            "congestion avoidance). A delayed-ACK receiver covers at most two unless ACKs "
            "are lost or compressed, which this loss-free, uncongested path never does: "
            + _ubc_why(ctx)
        ),
    )


def _ubc_why(ctx: Context) -> str:
    """The most segments one ACK covered in a UBC run of the largest flow (seed 1)."""
    import numpy as np

    size = ACK_SIZES[-1]
    run = ctx.run_traced("survey_mech.toml", 1, {**ACKS["ubc"], "flow.0.app.bytes": size}, ["seq"])
    seq = run.trace("seq")
    acks = seq[seq["ack"].to_numpy()]["offset"].to_numpy()
    step = np.diff(np.maximum.accumulate(acks))
    mss = int(seq[~seq["ack"].to_numpy()]["len"].max())
    return (
        f"in the {size} UBC run (seed 1, traced) no ACK covers more than "
        f"{int(step.max()) / mss:.0f} segments of {mss} bytes, so the two run identically."
    )


def analyse(ctx: Context) -> None:
    _slow_finding(ctx)
    _d_analysis(ctx)
    _ebsn_numbers(ctx)
    with ctx.figure(
        "mechanisms",
        "Survey §2 mechanisms: 1 MB throughput against the frame error rate (bars: 95 % CI)",
    ) as (ax,):
        for v in MECHS:
            errorbars(ax, ctx["wlan"], "throughput_bps", "per", v, v, x_scale=100.0, scale=1e-3)
        ax.set_xlabel("frame error rate (%)")
        ax.set_ylabel("throughput (kbps)")


EXPERIMENT = Experiment(
    name="survey-mech",
    title="Survey §2 mechanisms: Snoop ± SACK, DDA, ELN, EBSN, ACK strategies",
    paper="K. Pentikousis, TCP in wired-cum-wireless environments (2000), §2",
    description=(
        "One scenario per mechanism of the survey's §2: Reno over a 10 Mbps / 20 ms wire and "
        "a 2 Mbps radio with random frame errors, alone, with Snoop, with Snoop reading SACK "
        "blocks, with delayed duplicate ACKs over DDA's link layer, with ELN; DDA again on a "
        "19.2 kbps radio and over a sweep of d; EBSN under bad periods longer than the RTO; "
        "ACK every segment, delayed ACKs, DAASS and limited byte counting for a short flow."
    ),
    differences=(
        "The survey reports no set-up or numbers for these mechanisms; every scenario is "
        "ours, so the claims test orderings and the survey's few numbers (Allman's 28 %). "
        "EBSN is not in the survey: its runs are reported as numbers, not claims. "
        "ELN is the scheme with its difficulty assumed away: the mobile reads the header of "
        "every corrupted frame. EBSN's rule is the one the design notes give "
        "(the ICDCS '97 paper was not reachable)."
    ),
    campaigns=campaigns,
    analyse=analyse,
    seed="003",
    claims=(claims_wlan, claims_slow, claim_dda_d, claim_ack_28, claims_ack),
    published=Published(numbers={"ack_gain_20KB": 28.0}),
    settings=(
        "Every scenario is ours (the survey gives none): a 10 Mbps / 20 ms wire and a 2 Mbps "
        "radio under an ideal MAC, Reno, 1 MB (survey_mech.toml); the slow link 19.2 kbps "
        "(CDPD's raw rate) with 536-byte segments; 20 KB for the short flow of the ACK "
        "strategies.",
    ),
)
