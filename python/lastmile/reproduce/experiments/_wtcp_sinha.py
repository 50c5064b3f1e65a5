"""The ``wide-area`` experiment's second part: WTCP of Sinha et al. against TCP NewReno and
TCP Vegas on a CDPD-like link (campaign ``cdpd``).

K. Pentikousis, "TCP in wired-cum-wireless environments" (seed ``003_*``), §2.5.1, on
P. Sinha et al., "WTCP: a reliable transport protocol for wireless wide-area networks"
(MobiCom 1999). Base scenario ``wtcp_sinha_cdpd.toml``: 100 KB from a fixed
host to a mobile over a 10 Mbps / 20 ms wire and the ``cdpd`` preset (19.2 kbps raw,
Reed-Solomon (63,47), 250 ms one way, a two-state channel whose Bad periods defeat the code).

Variants: NewReno end to end; Vegas end to end (NewReno's loss recovery, Vegas's window);
the WTCP-Sinha proxy at the base station (NewReno to the fixed host, WTCP-Sinha's
receiver-controlled rate, loss-cause prediction, SACK and probes to the mobile). The sweep:
the channel's mean Bad period (50 ms, the preset's; 200 ms; 1 s) — the burst lengths over
which a rate-based sender that does not back off for a predicted wireless loss should
differ from window-based ones.

Claim: "WTCP was shown [56] to perform better than TCP NewReno [24] and TCP Vegas [48], at
least under certain scenarios."
"""

from __future__ import annotations

from lastmile.reproduce.framework import (
    Campaign,
    Context,
    Stat,
    clearly_above,
    errorbars,
    scaled,
)

SRC = "Survey §2.5.1"
BAD = "topology.wireless.errors.mean_bad"
REV_BAD = "topology.wireless.reverse_errors.mean_bad"
BAD_PERIODS = ("50ms", "200ms", "1s")
VARIANTS = {
    "newreno": {},
    "vegas": {"flow.0.tcp.cc": "vegas"},
    "wtcp_sinha": {"base_station.agent": "wtcp_sinha", "flow.0.transport": "wtcp_sinha"},
}
LABELS = {"newreno": "TCP NewReno", "vegas": "TCP Vegas", "wtcp_sinha": "WTCP-Sinha"}

Q_BETTER = (
    "WTCP was shown [56] to perform better than TCP NewReno [24] and TCP Vegas [48], at "
    "least under certain scenarios."
)


def campaign(quick: bool) -> Campaign:
    return Campaign(
        name="cdpd",
        scenario="wtcp_sinha_cdpd.toml",
        seeds=3 if quick else 10,
        zip={BAD: list(BAD_PERIODS), REV_BAD: list(BAD_PERIODS)},
        variants=VARIANTS,
        axes={"bad": BAD},
        metrics=("throughput_bps", "completion_s", "tcp_timeouts", "tcp_retransmits"),
        mechanisms=("wtcp_sinha",),
    )


def _kbps(ctx: Context) -> dict[tuple[str, str], Stat]:
    data = ctx["cdpd"]
    return {
        (v, b): scaled(data.value("throughput_bps", v, bad=b), 1e-3)
        for v in VARIANTS
        for b in BAD_PERIODS
    }


def claim(ctx: Context) -> None:
    """WTCP-Sinha better than NewReno and Vegas in at least one scenario."""
    kbps = _kbps(ctx)
    better = [
        b
        for b in BAD_PERIODS
        if kbps[("wtcp_sinha", b)].mean > max(kbps[("newreno", b)].mean, kbps[("vegas", b)].mean)
    ]
    clearly = [
        b
        for b in better
        if clearly_above(kbps[("wtcp_sinha", b)], kbps[("newreno", b)])
        and clearly_above(kbps[("wtcp_sinha", b)], kbps[("vegas", b)])
    ]
    ctx.claim(
        "WTCP-Sinha's throughput is above both NewReno's and Vegas's in at least one CDPD scenario",
        SRC,
        bool(better),
        "; ".join(
            f"Bad {b}: " + ", ".join(f"{LABELS[v]} {kbps[(v, b)]} kbps" for v in VARIANTS)
            for b in BAD_PERIODS
        )
        + f"; above both (means) at: {', '.join(better) or 'none'}; beyond both 95 % "
        f"intervals at: {', '.join(clearly) or 'none'}",
        quote=Q_BETTER,
        band="WTCP-Sinha's mean throughput above NewReno's and Vegas's at one mean Bad "
        "period or more ('at least under certain scenarios')",
        explanation="The detail gives each variant's throughput at each Bad period.",
    )


def analyse(ctx: Context) -> None:
    """One number per variant and Bad period, and the figure."""
    data = ctx["cdpd"]
    kbps = _kbps(ctx)
    for v in VARIANTS:
        for b in BAD_PERIODS:
            ctx.compare(f"{LABELS[v]}, mean Bad {b}", "throughput", "kbps", None, kbps[(v, b)])
    with ctx.figure(
        "throughput",
        "WTCP-Sinha, NewReno and Vegas: 100 KB over CDPD (19.2 kbps raw, RS(63,47)) "
        "against the channel's mean Bad period (bars: 95 % CI)",
    ) as (ax,):
        for v in VARIANTS:
            errorbars(ax, data, "throughput_bps", "bad", v, LABELS[v], scale=1e-3)
        ax.set_xscale("log")
        ax.set_xlabel("mean Bad period (s)")
        ax.set_ylabel("throughput (kbps)")
