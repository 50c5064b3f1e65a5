"""Captures as Wireshark reads them (`--pcap`): pcapng files in which a frame lost on the air
carries the CRC-error flag and a comment, a point-to-point hop as raw IPv4, and a wireless
cell as 802.11 behind radiotap with the MAC's control frames.

Read with tshark (Debian package `tshark`); where it is not installed these tests are
skipped with the reason printed.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

import lastmile
from conftest import example

TSHARK = shutil.which("tshark")
needs_tshark = pytest.mark.skipif(
    TSHARK is None, reason="tshark is not installed (apt-get install -y tshark)"
)


def tshark_fields(path: Path, *fields: str, where: str = "") -> list[list[str]]:
    """One row per frame (matching the display filter `where`) of the named fields."""
    assert TSHARK is not None
    args = [TSHARK, "-r", str(path), "-T", "fields", "-E", "separator=\t"]
    args += [a for f in fields for a in ("-e", f)]
    if where:
        args += ["-Y", where]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=120, check=True)
    return [line.split("\t") for line in proc.stdout.splitlines()]


@needs_tshark
def test_frames_lost_on_a_p2p_hop_are_flagged_and_commented(tmp_path: Path) -> None:
    overrides = {"flow.0.app.bytes": "300KB"}
    out = tmp_path / "p2p"
    result = lastmile.run(
        example("tulip-basic"), overrides=overrides, pcap=["wireless"], out_dir=out
    )
    path = out / "wireless.pcapng"
    rows = tshark_fields(path, "frame.packet_flags_crc_error", "frame.comment", "ip.src")
    lost = [r for r in rows if r[0] in ("1", "True")]
    links = result.links[result.links["name"] == "wireless"]
    # Every frame the link lost, in either direction, and only those.
    assert len(lost) == int(links["frames_lost"].sum()) > 0
    assert all(r[1].startswith("LOST on the air (") for r in lost), lost[:3]
    assert {r[1] for r in lost} <= {"LOST on the air (bs -> mh)", "LOST on the air (mh -> bs)"}
    assert len(rows) == int(links["frames_sent"].sum())
    # Delivered frames carry no comment.
    assert all(r[1] == "" for r in rows if r[0] not in ("1", "True"))


@needs_tshark
def test_checksums_verify_in_tshark(tmp_path: Path) -> None:
    out = tmp_path / "sum"
    lastmile.run(
        example("chain-per5-newreno"),
        overrides={"flow.0.app.bytes": "100KB"},
        pcap=["wired"],
        out_dir=out,
    )
    rows = tshark_fields(
        out / "wired.pcapng",
        "ip.checksum.status",
        "tcp.checksum.status",
        where="tcp",
    )
    assert rows
    # 2 = "Good" once tshark is asked to verify (below); default 2 = unverified, so ask.
    assert TSHARK is not None
    proc = subprocess.run(
        [TSHARK, "-r", str(out / "wired.pcapng"), "-o", "tcp.check_checksum:TRUE",
         "-o", "ip.check_checksum:TRUE", "-Y", "ip.checksum.status == 0 || "
         "tcp.checksum.status == 0"],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    assert proc.stdout.strip() == "", f"bad checksums:\n{proc.stdout[:500]}"


@needs_tshark
def test_a_cell_capture_is_80211_with_control_frames_and_lost_frames_flagged(
    tmp_path: Path,
) -> None:
    out = tmp_path / "cell"
    result = lastmile.run(
        example("tulip-fama"),
        overrides={"flow.0.app.bytes": "200KB"},
        pcap=["wireless"],
        traces=["wireless_tx"],
        out_dir=out,
    )
    path = out / "wireless.pcapng"
    rows = tshark_fields(
        path,
        "wlan.fc.type_subtype",
        "radiotap.flags.badfcs",
        "frame.packet_flags_crc_error",
        "frame.comment",
        "tcp.len",
    )
    kinds = {r[0] for r in rows}
    # RTS (0x001b), CTS (0x001c) and data (0x0020) frames are all there.
    assert {"0x001b", "0x001c", "0x0020"} <= kinds, kinds
    lacks = [r for r in rows if r[3].startswith("TULIP LACK")]
    assert lacks, "TULIP's LACKs are captured with their fields in the comment"
    lost = [r for r in rows if r[2] in ("1", "True")]
    assert all(r[1] in ("1", "True") for r in lost), "radiotap says bad FCS too"
    assert all(r[3].startswith("LOST at ") for r in lost)
    # The lost frames carrying a datagram are exactly those the trace records as lost.
    trace = result.trace("wireless_tx")
    lost_with_tcp = [r for r in lost if r[4] != ""]
    assert len(lost_with_tcp) == int(trace["lost"].sum()) > 0


@needs_tshark
def test_a_dcf_cell_capture_holds_mac_acks(tmp_path: Path) -> None:
    out = tmp_path / "dcf"
    lastmile.run(
        example("lle-adhoc"),
        overrides={"flow.0.app.bytes": "50KB"},
        pcap=["wireless"],
        out_dir=out,
    )
    rows = tshark_fields(out / "wireless.pcapng", "wlan.fc.type_subtype", "tcp.len")
    kinds = [r[0] for r in rows]
    # 802.11 ACK is type/subtype 0x001d; every data frame delivered is acknowledged.
    assert kinds.count("0x001d") > 0
    assert kinds.count("0x0020") > 0
    assert any(r[1] not in ("", "0") for r in rows), "TCP data decoded inside 802.11"
