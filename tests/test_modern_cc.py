"""``validation/modern_cc.py``: the findings docs/modern-cc.md states.

Modern congestion control under the seeds' mechanisms has no paper to check against; what
the page says is tested here on the same runs (two seeds, 30 s), so that a change which
overturns a finding fails:

- on TULIP's channel 802.11's own ARQ hides every loss: the four loss-based TCPs deliver
  exactly the same, BBR (paced) within 2 % of them;
- LLE-TCP, which takes the TCP ACKs off the air, beats the MAC alone for every TCP there;
- with no ARQ below it BBR, which does not cut its rate on random loss, keeps well above
  every loss-based TCP (the page: 1.8 to 2.2 times on the full runs) on both channels.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "validation" / "modern_cc.py"
SEEDS = (1, 2)
STOP_S = 30.0
LOSS_BASED = ("Reno", "NewReno", "SACK", "CUBIC")


@pytest.fixture(scope="module")
def mcc() -> ModuleType:
    spec = importlib.util.spec_from_file_location("modern_cc", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["modern_cc"] = module
    spec.loader.exec_module(module)
    return module


def _kbps(mcc: ModuleType, channel: str, mech: str, tcp: str) -> float:
    runs = [mcc.one(channel, mech, tcp, seed, STOP_S) for seed in SEEDS]
    assert not any(stalled for _, stalled in runs), (channel, mech, tcp)
    return float(sum(bps for bps, _ in runs)) / len(runs) / 1e3


TULIP = "TULIP's BER 15e-6"


def test_with_the_macs_arq_every_tcp_delivers_the_same_on_tulips_channel(
    mcc: ModuleType,
) -> None:
    got = {tcp: _kbps(mcc, TULIP, "802.11 ARQ only", tcp) for tcp in mcc.TCPS}
    # The loss-based TCPs never see a loss: the same window, the same bytes, bit for bit.
    assert len({got[tcp] for tcp in LOSS_BASED}) == 1, got
    # BBR paces its window out: within 2 % of them.
    assert abs(got["BBR"] - got["Reno"]) <= 0.02 * got["Reno"], got


def test_lle_tcp_beats_the_mac_alone_for_every_tcp_on_tulips_channel(mcc: ModuleType) -> None:
    for tcp in mcc.TCPS:
        mac, lle = (_kbps(mcc, TULIP, m, tcp) for m in ("802.11 ARQ only", "LLE-TCP"))
        assert lle > 1.05 * mac, (tcp, mac, lle)


def test_without_arq_bbr_keeps_well_above_every_loss_based_tcp(mcc: ModuleType) -> None:
    for channel in mcc.CHANNELS:
        bbr = _kbps(mcc, channel, "no ARQ", "BBR")
        for tcp in LOSS_BASED:
            other = _kbps(mcc, channel, "no ARQ", tcp)
            assert bbr > 1.5 * other, (channel, tcp, bbr, other)
