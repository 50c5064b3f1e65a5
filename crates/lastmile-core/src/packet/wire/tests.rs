//! Wire codec tests: datagrams Linux wrote (`fixtures`) read and written back, checksums
//! verified by an independent sum, and every refusal and every dropped field.

mod fixtures;

use super::*;
use crate::packet::TCP_HEADER_LEN;

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

fn tcp(p: &Packet) -> &TcpSegment {
    p.tcp().expect("a TCP segment")
}

/// The sum of all 16-bit words with end-around carry, written out plainly.
fn plain_sum(bytes: &[u8]) -> u32 {
    let mut sum = 0u32;
    for pair in bytes.chunks(2) {
        let word = (u32::from(pair[0]) << 8) | u32::from(*pair.get(1).unwrap_or(&0));
        sum += word;
        sum = (sum & 0xffff) + (sum >> 16);
    }
    sum
}

/// True if the datagram's IP and transport checksums verify, by `plain_sum`.
fn checksums_verify(d: &[u8]) -> bool {
    let segment = &d[20..];
    let mut pseudo = d[12..20].to_vec();
    pseudo.extend_from_slice(&[0, d[9]]);
    pseudo.extend_from_slice(&(segment.len() as u16).to_be_bytes());
    pseudo.extend_from_slice(segment);
    plain_sum(&d[..20]) == 0xffff && plain_sum(&pseudo) == 0xffff
}

#[test]
fn linux_syn_reads_with_every_option() {
    let bytes = hex(fixtures::SYN);
    let parsed = parse_ipv4(&bytes).expect("parses");
    let p = &parsed.packet;
    assert_eq!(p.ip.src, Ipv4Addr(0x0a00_0001));
    assert_eq!(p.ip.dst, Ipv4Addr(0x0a00_0003));
    assert_eq!((p.ip.ttl, p.ip.total_len, p.ip.ecn), (64, 60, Ecn::NotEct));
    let s = tcp(p);
    assert_eq!(s.header.dst_port, 5001);
    assert_eq!(s.header.control, Control::Syn);
    assert_eq!(s.header.ack, None);
    assert_eq!(s.header.window, 64_240, "a SYN's window as sent");
    let o = s.header.options;
    assert_eq!(o.mss, Some(1460));
    assert!(o.sack_permitted);
    assert_eq!(o.window_scale, Some(10));
    assert_eq!(o.timestamp.map(|t| t.1), Some(0));
    assert_eq!(parsed.dropped, Dropped::default());
    assert!(parsed.payload.is_empty());
}

#[test]
fn linux_data_segment_round_trips_byte_for_byte() {
    let bytes = hex(fixtures::DATA);
    let parsed = parse_ipv4(&bytes).expect("parses");
    let s = tcp(&parsed.packet);
    assert_eq!(s.payload_len, 1448);
    assert_eq!(s.header.control, Control::Psh);
    assert!(s.header.ack.is_some());
    let expected: Vec<u8> = (0..1448).map(|j| (j % 251) as u8).collect();
    assert_eq!(parsed.payload, expected.as_slice(), "segment 0's pattern");
    // The window field as sent; NOP NOP TS as Linux lays it out.
    let again = encode_ipv4_with_payload(&parsed.packet, 0, parsed.payload);
    assert_eq!(again, bytes);
}

#[test]
fn linux_data_acks_fins_and_udp_round_trip_exactly() {
    for (name, h) in [
        ("DATA", fixtures::DATA),
        ("FIN_ACK", fixtures::FIN_ACK),
        ("REPLY", fixtures::REPLY),
        ("UDP", fixtures::UDP),
    ] {
        let bytes = hex(h);
        let parsed = parse_ipv4(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let again = encode_ipv4_with_payload(&parsed.packet, 0, parsed.payload);
        assert_eq!(again, bytes, "{name}");
    }
}

#[test]
fn linux_syns_and_sack_acks_round_trip_in_meaning_with_our_option_layout() {
    // Linux writes MSS, SACK-permitted, TS, NOP, WS; we pad in front: NOP, MSS, ... WS.
    for h in [fixtures::SYN, fixtures::SYN_ACK] {
        let bytes = hex(h);
        let parsed = parse_ipv4(&bytes).expect("parses");
        let again = encode_ipv4_with_payload(&parsed.packet, 0, parsed.payload);
        assert_eq!(again.len(), bytes.len());
        assert_eq!(again[..20], bytes[..20], "the IP header");
        assert!(checksums_verify(&again));
        assert_eq!(parse_ipv4(&again).expect("parses").packet, parsed.packet);
    }
    // Linux aligns TS and SACK each behind two NOPs (24 bytes); the model packs them
    // (`TcpOptions::encoded_len`: 20), so the ACK is 4 bytes shorter once read.
    let bytes = hex(fixtures::SACK_ACK);
    let parsed = parse_ipv4(&bytes).expect("parses");
    assert_eq!(parsed.packet.ip.total_len as usize, bytes.len() - 4);
    let again = encode_ipv4_with_payload(&parsed.packet, 0, parsed.payload);
    assert_eq!(again.len(), bytes.len() - 4);
    assert!(checksums_verify(&again));
    assert_eq!(parse_ipv4(&again).expect("parses").packet, parsed.packet);
}

#[test]
fn linux_sack_blocks_read() {
    let bytes = hex(fixtures::SACK_ACK);
    let parsed = parse_ipv4(&bytes).expect("parses");
    let h = tcp(&parsed.packet).header;
    assert_eq!(h.options.sack_blocks.len(), 1);
    let (left, right) = h.options.sack_blocks.as_slice()[0];
    assert_eq!(right - left, 1448, "one segment above the hole");
    assert!(
        h.ack.expect("ack") < left,
        "the block lies above the cumulative ACK"
    );
}

#[test]
fn linux_udp_reads_with_its_payload() {
    let bytes = hex(fixtures::UDP);
    let parsed = parse_ipv4(&bytes).expect("parses");
    assert_eq!(parsed.payload, b"hello udp");
    match parsed.packet.transport {
        Transport::Udp(u) => assert_eq!((u.dst_port, u.payload_len), (9999, 9)),
        other => panic!("not UDP: {other:?}"),
    }
}

#[test]
fn a_payload_written_elsewhere_keeps_checksums_right() {
    let bytes = hex(fixtures::DATA);
    let parsed = parse_ipv4(&bytes).expect("parses");
    // Written with zeros, then the real bytes filled in: the same datagram.
    let mut zeros = encode_ipv4_with_payload(&parsed.packet, 0, &[]);
    assert!(checksums_verify(&zeros));
    assert_ne!(zeros, bytes);
    write_payload(&mut zeros, 0, parsed.payload);
    assert_eq!(zeros, bytes);
    // Part of it at an offset.
    let mut part = encode_ipv4_with_payload(&parsed.packet, 0, &parsed.payload[..100]);
    write_payload(&mut part, 100, &parsed.payload[100..]);
    assert_eq!(part, bytes);
}

#[test]
fn window_is_written_scaled_except_in_a_syn() {
    let mut p = parse_ipv4(&hex(fixtures::DATA)).expect("parses").packet;
    p.tcp_mut().expect("tcp").header.window = 63 << 10;
    let d = encode_ipv4_with_payload(&p, 10, &[]);
    assert_eq!(u16::from_be_bytes([d[34], d[35]]), 63);
    let mut syn = parse_ipv4(&hex(fixtures::SYN)).expect("parses").packet;
    syn.tcp_mut().expect("tcp").header.window = 64_240;
    let d = encode_ipv4_with_payload(&syn, 10, &[]);
    assert_eq!(u16::from_be_bytes([d[34], d[35]]), 64_240);
}

#[test]
fn refusals_name_what_is_wrong() {
    let data = hex(fixtures::DATA);
    assert_eq!(parse_ipv4(&[]), Err(WireError::Truncated(0)));
    let mut v6 = data.clone();
    v6[0] = 0x60;
    assert_eq!(parse_ipv4(&v6), Err(WireError::Version(6)));
    assert_eq!(parse_ipv4(&data[..40]), Err(WireError::Truncated(40)));
    let mut bad_ip = data.clone();
    bad_ip[8] = 63; // TTL changed, header checksum not
    assert_eq!(parse_ipv4(&bad_ip), Err(WireError::HeaderChecksum));
    let mut bad_payload = data.clone();
    bad_payload[100] ^= 0xff;
    assert_eq!(parse_ipv4(&bad_payload), Err(WireError::TransportChecksum));
    // ICMP echo request, checksums right.
    let mut icmp = parse_ipv4(&hex(fixtures::UDP)).expect("parses").packet;
    icmp.ip.protocol = 1;
    let mut d = encode_ipv4_with_payload(&icmp, 0, b"ping");
    assert_eq!(parse_ipv4(&d), Err(WireError::Protocol(1)));
    // A first fragment (more fragments set), header checksum fixed.
    d[6] |= 0x20;
    d[10..12].copy_from_slice(&[0, 0]);
    let c = internet_checksum(&d[..20]);
    d[10..12].copy_from_slice(&c.to_be_bytes());
    assert_eq!(parse_ipv4(&d), Err(WireError::Fragment));
}

/// `bytes` with the TCP header's options replaced by `options` and the flags by `flags`,
/// lengths and checksums made right.
fn with_tcp(bytes: &[u8], flags: u8, options: &[u8]) -> Vec<u8> {
    let payload = &bytes[20 + usize::from(bytes[32] >> 4) * 4..];
    let mut d = bytes[..40].to_vec();
    d[33] = flags;
    d.extend_from_slice(options);
    d[32] = (((TCP_HEADER_LEN as usize + options.len()) / 4) as u8) << 4;
    d.extend_from_slice(payload);
    let len = d.len() as u16;
    d[2..4].copy_from_slice(&len.to_be_bytes());
    d[10..12].copy_from_slice(&[0, 0]);
    let c = internet_checksum(&d[..20]);
    d[10..12].copy_from_slice(&c.to_be_bytes());
    write_payload(&mut d, 0, &[]); // recomputes the TCP checksum
    d
}

#[test]
fn what_the_model_cannot_carry_is_counted() {
    let data = hex(fixtures::REPLY);
    // PSH beside FIN, and URG: FIN kept, both counted as dropped flags.
    let d = with_tcp(&data, FIN | PSH | ACK, &[1, 1, 1, 1]);
    let parsed = parse_ipv4(&d).expect("parses");
    assert_eq!(tcp(&parsed.packet).header.control, Control::Fin);
    assert!(parsed.dropped.tcp_flags);
    let d = with_tcp(&data, URG | ACK, &[1, 1, 1, 1]);
    assert!(parse_ipv4(&d).expect("parses").dropped.tcp_flags);
    // An unknown option (kind 30, MPTCP) is skipped; MSS after it still read.
    let d = with_tcp(&data, ACK, &[30, 4, 0, 0, 2, 4, 5, 0xb4]);
    let parsed = parse_ipv4(&d).expect("parses");
    assert_eq!(parsed.dropped.tcp_options, 1);
    assert_eq!(tcp(&parsed.packet).header.options.mss, Some(1460));
    // Malformed: an option running past the header; a timestamp of the wrong length.
    assert_eq!(
        parse_ipv4(&with_tcp(&data, ACK, &[8, 12, 0, 0])),
        Err(WireError::Options)
    );
    assert_eq!(
        parse_ipv4(&with_tcp(&data, ACK, &[8, 6, 0, 0, 0, 0, 1, 1])),
        Err(WireError::Options)
    );
}

#[test]
fn ip_options_are_read_past_and_counted() {
    let data = hex(fixtures::REPLY);
    // Insert a 4-byte IP option (NOP NOP NOP EOL), IHL 6.
    let mut d = vec![0x46];
    d.extend_from_slice(&data[1..20]);
    d.extend_from_slice(&[1, 1, 1, 0]);
    d.extend_from_slice(&data[20..]);
    let len = d.len() as u16;
    d[2..4].copy_from_slice(&len.to_be_bytes());
    d[10..12].copy_from_slice(&[0, 0]);
    let c = internet_checksum(&d[..24]);
    d[10..12].copy_from_slice(&c.to_be_bytes());
    let parsed = parse_ipv4(&d).expect("parses");
    assert!(parsed.dropped.ip_options);
    assert_eq!(parsed.payload, b"ok");
    assert_eq!(
        parsed.packet.ip.total_len, 54,
        "rewritten without the options"
    );
}

#[test]
fn ecn_codepoints_and_tcp_ecn_flags_survive() {
    let mut p = parse_ipv4(&hex(fixtures::DATA)).expect("parses").packet;
    for ecn in [Ecn::NotEct, Ecn::Ect0, Ecn::Ect1, Ecn::Ce] {
        p.ip.ecn = ecn;
        let h = &mut p.tcp_mut().expect("tcp").header;
        h.ece = ecn == Ecn::Ce;
        h.cwr = ecn == Ecn::Ect1;
        let d = encode_ipv4_with_payload(&p, 0, &[]);
        assert_eq!(parse_ipv4(&d).expect("parses").packet, p, "{ecn:?}");
    }
}
