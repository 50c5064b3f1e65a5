"""Why ns-2.35's Vegas is slower than lastmile's at PER 0.1: one run of each, traced.

The classic-TCP family (`validation/families/classic_tcp_ns2.py`) finds lastmile's Vegas
1.4 times ns-2's goodput at PER 0.1 on path B. This script runs one of its points in ns-2
with every packet event and the agent's variables traced (`chain.tcl` with
``VEGAS_TRACE``), and prints the evidence the family's explanation quotes:

- how often ns-2 doubled its retransmission timer's backoff at a timeout and at a fast or
  fine-grained retransmit (its duplicate-ACK path calls ``reset_rtx_timer(1)``,
  tcp-vegas.cc:395, which backs the timer off: tcp.h:337, tcp.cc:622);
- the sender's silences of 100 ms or more in ns-2 and in lastmile on the same loss list;
- a replay of tcp-vegas.cc's once-per-round code (lines 205-290) on the trace: the base
  RTT it keeps and the window increases it decides, checked against ns-2's own ``cwnd_``
  trace; the time the base RTT spent below ``--low-base`` (a round without samples is
  timed from its start, :214, and may become the base, :229).

    python validation/ns2/vegas_trace.py [--seed 2] [--window 20] [--per 0.1] [--rounds 10 12]

Not part of CI (a few seconds; needs ns-2).
"""

from __future__ import annotations

import argparse
import collections
import itertools
import json
import os
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import lastmile
from validation.families.classic_tcp_ns2 import loss_list, scenario

HERE = Path(__file__).resolve().parent
#: ns-2's Agent/TCP/Vegas defaults (ns-default.tcl) and the run's length.
ALPHA, BETA = 1, 3
DURATION_S = 60.0
PAUSE_S = 0.1


@dataclass
class Replay:
    """tcp-vegas.cc's per-round section and sample bookkeeping, fed the trace's events."""

    ring: int
    verbose_from: float = float("inf")
    verbose_to: float = float("-inf")
    send_time: list[float] = field(default_factory=list)
    transmits: list[int] = field(default_factory=list)
    t_seqno: int = 0
    last_ack: int = -1
    cwnd: float = 1.0
    ssthresh: float = 20.0
    begseq: int = 0
    begtime: float = 0.0
    sum_rtt: float = 0.0
    count_rtt: int = 0
    base: float | None = None
    incr: float = 0.0
    #: (time, base RTT) at every round's end.
    bases: list[tuple[float, float]] = field(default_factory=list)
    predicted_increases: list[float] = field(default_factory=list)
    traced_increases: list[float] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.send_time = [-1.0] * self.ring
        self.transmits = [0] * self.ring

    def on_send(self, seqno: int, now: float) -> None:
        self.send_time[seqno % self.ring] = now
        self.transmits[seqno % self.ring] += 1

    def on_variable(self, name: str, value: float, now: float) -> None:
        if name == "t_seqno_":
            self.t_seqno = int(value)
        elif name == "ack_":
            self.last_ack = int(value)
        elif name == "ssthresh_":
            self.ssthresh = value
        elif name == "cwnd_":
            step = value - self.cwnd
            if step > 0 and abs(step - round(step)) > 1e-9:
                self.traced_increases.append(now)
            self.cwnd = value

    def on_ack(self, ack: int, now: float) -> None:
        if self.base is None:
            self.base = now  # firstrecv_ (tcp-vegas.cc:170)
        if ack <= self.last_ack:
            return
        old_ack, self.last_ack = self.last_ack, ack
        self.t_seqno = max(self.t_seqno, ack + 1)  # newack() (tcp.cc)
        if ack >= self.begseq:
            self.end_round(ack, now)
        increase = 0.0 if self.incr == 1 and self.cwnd >= self.ssthresh else self.incr
        if increase > 0 and self.cwnd - (self.t_seqno - ack) <= 2:
            self.predicted_increases.append(now)
        sent, transmits = self.send_time[ack % self.ring], self.transmits[ack % self.ring]
        span, k = ack - old_ack, (old_ack + 1) % self.ring
        while k <= ack % self.ring and span > 0:  # the loop of tcp-vegas.cc:307, as it is
            self.send_time[k], self.transmits[k] = -1.0, 0
            k, span = (k + 1) % self.ring, span - 1
        if sent != 0.0 and transmits == 1:
            sample = now - sent
            self.sum_rtt += sample
            self.count_rtt += 1
            if sample > 0 and sample < self.base:
                self.base = sample

    def end_round(self, ack: int, now: float) -> None:
        assert self.base is not None
        samples = self.count_rtt
        rtt = self.sum_rtt / samples if samples else now - self.begtime
        self.sum_rtt, self.count_rtt = 0.0, 0
        length = self.t_seqno - self.begseq
        if rtt > 0:
            if rtt < self.base or length <= 1:
                self.base = rtt
            expect = (self.t_seqno - ack) / self.base
            delta = int((expect - length / rtt) * self.base + 0.5)
            if self.cwnd >= self.ssthresh:
                self.incr = 0.0 if delta >= ALPHA else 1 / self.cwnd
            if self.verbose_from <= now <= self.verbose_to:
                how = f"mean of {samples} samples" if samples else "since the round began"
                print(
                    f"{now:9.5f} s  ack {ack:5d}  rtt {rtt * 1e3:7.2f} ms ({how})  base "
                    f"{self.base * 1e3:7.2f} ms  delta {delta:2d}  cwnd {self.cwnd:.3f}  "
                    f"increment {self.incr:.3f}"
                )
        self.bases.append((now, self.base))
        self.begseq, self.begtime = self.t_seqno, now


@dataclass
class Ns2Trace:
    replay: Replay
    sends: list[float] = field(default_factory=list)
    #: backoff_ doublings at a timeout (nrexmit_ counted at the same instant) and elsewhere.
    doublings_at_timeouts: int = 0
    doublings_elsewhere: int = 0


def read_ns2(path: Path, replay: Replay) -> Ns2Trace:
    trace = Ns2Trace(replay)
    doublings: list[float] = []
    timeouts: set[float] = set()
    backoff = 1.0
    for line in path.read_text().splitlines():
        f = line.split()
        if f[0] in ("+", "r") and len(f) >= 12:
            now = float(f[1])
            if f[0] == "+" and f[2:5] == ["0", "1", "tcp"]:
                replay.on_send(int(f[10]), now)
                trace.sends.append(now)
            elif f[0] == "r" and f[2:5] == ["1", "0", "ack"]:
                replay.on_ack(int(f[10]), now)
        elif len(f) >= 7 and f[5].endswith("_"):
            now, name, value = float(f[0]), f[5], float(f[6])
            replay.on_variable(name, value, now)
            if name == "backoff_":
                if value > backoff:
                    doublings.append(now)
                backoff = value
            elif name == "nrexmit_":
                timeouts.add(now)
    trace.doublings_at_timeouts = sum(1 for t in doublings if t in timeouts)
    trace.doublings_elsewhere = len(doublings) - trace.doublings_at_timeouts
    return trace


def pauses(sends: list[float]) -> tuple[float, dict[float, int]]:
    """Total silence in gaps of `PAUSE_S` or more between sends, and the gaps by length."""
    gaps = [b - a for a, b in itertools.pairwise(sends) if b - a >= PAUSE_S]
    return sum(gaps), dict(sorted(collections.Counter(round(g, 1) for g in gaps).items()))


def lastmile_sends(window: int, per: float, seed: int) -> list[float]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "scenario.json"
        path.write_text(json.dumps(scenario("Vegas", window, per, seed, DURATION_S)))
        seq = lastmile.run(path, traces=["seq"]).trace("seq")
    data = seq[~seq["ack"]]
    return [float(t) for t in data["time_s"]]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seed", type=int, default=2)
    p.add_argument("--window", type=int, default=20)
    p.add_argument("--per", type=float, default=0.1)
    p.add_argument("--rounds", type=float, nargs=2, metavar=("FROM_S", "TO_S"))
    p.add_argument("--low-base", type=float, default=0.030, metavar="S")
    args = p.parse_args()
    losses = "list:" + ",".join(map(str, loss_list(args.per, args.seed)))
    replay = Replay(ring=args.window)
    if args.rounds:
        replay.verbose_from, replay.verbose_to = args.rounds
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "vegas.tr"
        command = ["ns", str(HERE / "chain.tcl"), "Vegas", str(args.window), losses]
        command += [str(args.seed), str(DURATION_S)]
        env = {**os.environ, "VEGAS_TRACE": str(path)}
        subprocess.run(command, cwd=tmp, env=env, check=True, capture_output=True)
        ns2 = read_ns2(path, replay)
    ours = lastmile_sends(args.window, args.per, args.seed)
    low = sum(
        b[0] - a[0]
        for a, b in zip(replay.bases, [*replay.bases[1:], (DURATION_S, 0.0)], strict=True)
        if a[1] < args.low_base
    )
    print(f"Vegas, window {args.window}, PER {args.per}, seed {args.seed} (the suite's loss list)")
    print(
        f"- ns-2 backoff_ doublings: {ns2.doublings_at_timeouts} at timeouts, "
        f"{ns2.doublings_elsewhere} at fast or fine-grained retransmits"
    )
    for name, sends in (("ns-2", ns2.sends), ("lastmile", ours)):
        total, by_length = pauses(sends)
        print(
            f"- {name}: {len(sends)} data packets sent; silent {total:.1f} s of "
            f"{DURATION_S:g} in pauses of {PAUSE_S * 1e3:.0f} ms or more; by length (s: "
            f"count) {by_length}"
        )
    # The agent's trace prints times to 5 decimals (a microsecond apart at most).
    traced = {round(t, 5) for t in replay.traced_increases}
    found = sum(1 for t in replay.predicted_increases if round(t, 5) in traced)
    print(
        f"- replay of tcp-vegas.cc's rounds: {len(replay.predicted_increases)} window "
        f"increases decided, {found} of them in ns-2's cwnd_ trace at the same instant, "
        f"which has {len(replay.traced_increases)} fractional steps up; base RTT below "
        f"{args.low_base * 1e3:.0f} ms for {low:.1f} s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
