//! pcap tests: checksums worked by hand, decode-your-own-encoding round trips, option
//! padding, window scaling and the file format (pcapng). A sample capture for tshark is
//! written by the ignored test `write_sample_capture_for_tshark`.

use super::*;
use crate::engine::SimDuration;
use crate::ids::FlowId;
use crate::packet::{
    Ecn, Ipv4Addr, Ipv4Header, PacketId, SackBlock, SackBlocks, SeqNumber, Service, DEFAULT_TTL,
};

// ---------------------------------------------------------------------------------------
// Building packets

const CLIENT: u32 = 0; // 10.0.0.1
const SERVER: u32 = 1; // 10.0.0.2

fn packet(src: u32, dst: u32, transport: Transport) -> Packet {
    let protocol = match transport {
        Transport::Tcp(_) => PROTO_TCP,
        _ => PROTO_UDP,
    };
    let mut p = Packet {
        id: PacketId(7),
        origin_time: SimTime::ZERO,
        ip: Ipv4Header {
            src: Ipv4Addr::for_node(src),
            dst: Ipv4Addr::for_node(dst),
            protocol,
            ttl: DEFAULT_TTL,
            total_len: 0,
            ident: 0x1c46,
            ecn: crate::packet::Ecn::NotEct,
        },
        transport,
        flow: FlowId(0),
        service: Service::Reliable,
    };
    p.fix_length();
    p
}

struct Seg {
    from_client: bool,
    seq: u32,
    ack: Option<u32>,
    control: Control,
    window: u32,
    options: TcpOptions,
    payload: u32,
}

impl Seg {
    fn new(from_client: bool, seq: u32, ack: Option<u32>) -> Self {
        Seg {
            from_client,
            seq,
            ack,
            control: Control::None,
            window: 65_535,
            options: TcpOptions::default(),
            payload: 0,
        }
    }
    fn control(mut self, c: Control) -> Self {
        self.control = c;
        self
    }
    fn window(mut self, w: u32) -> Self {
        self.window = w;
        self
    }
    fn options(mut self, o: TcpOptions) -> Self {
        self.options = o;
        self
    }
    fn payload(mut self, n: u32) -> Self {
        self.payload = n;
        self
    }
    fn build(self) -> Packet {
        let (src, dst, sport, dport) = if self.from_client {
            (CLIENT, SERVER, 40_000, 80)
        } else {
            (SERVER, CLIENT, 80, 40_000)
        };
        packet(
            src,
            dst,
            Transport::Tcp(TcpSegment {
                header: TcpHeader {
                    src_port: sport,
                    dst_port: dport,
                    seq: SeqNumber(self.seq),
                    ack: self.ack.map(SeqNumber),
                    control: self.control,
                    window: self.window,
                    options: self.options,
                    ece: false,
                    cwr: false,
                    sender_in_slow_start: false,
                },
                payload_len: self.payload,
            }),
        )
    }
}

fn syn_options(tsval: u32, tsecr: u32, shift: u8) -> TcpOptions {
    TcpOptions {
        mss: Some(1460),
        window_scale: Some(shift),
        sack_permitted: true,
        timestamp: Some((tsval, tsecr)),
        sack_blocks: SackBlocks::default(),
        notice: Default::default(),
    }
}

fn ts(tsval: u32, tsecr: u32) -> TcpOptions {
    TcpOptions {
        timestamp: Some((tsval, tsecr)),
        ..Default::default()
    }
}

fn block(left: u32, right: u32) -> SackBlock {
    (SeqNumber(left), SeqNumber(right))
}

// ---------------------------------------------------------------------------------------
// An independent decoder

/// A checksum written the naive way, word by word over the whole buffer (payload included),
/// to check `internet_checksum` and the zero-payload shortcut against.
fn naive_checksum(bytes: &[u8]) -> u16 {
    let mut sum: u32 = 0;
    let mut i = 0;
    while i < bytes.len() {
        let hi = u32::from(bytes[i]) << 8;
        let lo = if i + 1 < bytes.len() {
            u32::from(bytes[i + 1])
        } else {
            0
        };
        sum += hi | lo;
        sum = (sum & 0xffff) + (sum >> 16);
        i += 2;
    }
    !(sum as u16)
}

fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}
fn be32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn decode_options(bytes: &[u8]) -> TcpOptions {
    let mut o = TcpOptions::default();
    let mut i = 0;

    while i < bytes.len() {
        match bytes[i] {
            0 => break,
            1 => i += 1,
            kind => {
                let len = bytes[i + 1] as usize;
                assert!(len >= 2 && i + len <= bytes.len(), "option {kind} overruns");
                let v = &bytes[i + 2..i + len];
                match (kind, len) {
                    (2, 4) => o.mss = Some(be16(v, 0)),
                    (3, 3) => o.window_scale = Some(v[0]),
                    (4, 2) => o.sack_permitted = true,
                    (8, 10) => o.timestamp = Some((be32(v, 0), be32(v, 4))),
                    (5, _) => {
                        assert_eq!((len - 2) % 8, 0, "SACK length {len}");
                        for b in v.chunks(8) {
                            assert!(o.sack_blocks.push(block(be32(b, 0), be32(b, 4))));
                        }
                    }
                    _ => panic!("unexpected option {kind} of length {len}"),
                }
                i += len;
            }
        }
    }
    o
}

/// Decodes a datagram back into a packet, checking every length and checksum on the way.
/// The TCP window is the raw 16-bit field.
fn decode(bytes: &[u8]) -> Packet {
    assert_eq!(bytes[0], 0x45, "version 4, IHL 5");
    let total_len = be16(bytes, 2) as usize;
    assert_eq!(total_len, bytes.len(), "IP total length");
    assert_eq!(be16(bytes, 6), 0x4000, "DF set, not fragmented");
    assert_eq!(naive_checksum(&bytes[..20]), 0, "IP header checksum");
    assert_eq!(bytes[1] >> 2, 0, "DSCP 0");
    let (ttl, protocol) = (bytes[8], bytes[9]);
    let (src, dst) = (be32(bytes, 12), be32(bytes, 16));
    let seg = &bytes[20..];
    let mut pseudo = bytes[12..20].to_vec();
    pseudo.extend_from_slice(&[0, protocol]);
    pseudo.extend_from_slice(&(seg.len() as u16).to_be_bytes());
    pseudo.extend_from_slice(seg);
    assert_eq!(naive_checksum(&pseudo), 0, "transport checksum");
    let transport = match protocol {
        PROTO_TCP => {
            let header_len = (seg[12] >> 4) as usize * 4;
            let flags = seg[13];
            let control = match flags & (SYN | FIN | RST | PSH) {
                0 => Control::None,
                SYN => Control::Syn,
                FIN => Control::Fin,
                RST => Control::Rst,
                PSH => Control::Psh,
                other => panic!("more than one control flag: {other:#x}"),
            };
            assert!(seg[header_len..].iter().all(|&b| b == 0), "zero payload");
            Transport::Tcp(TcpSegment {
                header: TcpHeader {
                    src_port: be16(seg, 0),
                    dst_port: be16(seg, 2),
                    seq: SeqNumber(be32(seg, 4)),
                    ack: (flags & ACK != 0).then(|| SeqNumber(be32(seg, 8))),
                    control,
                    window: u32::from(be16(seg, 14)),
                    options: decode_options(&seg[20..header_len]),
                    ece: flags & ECE != 0,
                    cwr: flags & CWR != 0,
                    sender_in_slow_start: false,
                },
                payload_len: (seg.len() - header_len) as u32,
            })
        }
        PROTO_UDP => {
            assert_eq!(be16(seg, 4) as usize, seg.len(), "UDP length");
            assert_ne!(be16(seg, 6), 0, "UDP checksum present");
            Transport::Udp(UdpDatagram {
                src_port: be16(seg, 0),
                dst_port: be16(seg, 2),
                payload_len: (seg.len() - 8) as u32,
            })
        }
        other => panic!("protocol {other}"),
    };
    Packet {
        id: PacketId(7),
        origin_time: SimTime::ZERO,
        ip: Ipv4Header {
            src: Ipv4Addr(src),
            dst: Ipv4Addr(dst),
            protocol,
            ttl,
            total_len: total_len as u32,
            ident: be16(bytes, 4),
            ecn: match bytes[1] & 0b11 {
                0b00 => Ecn::NotEct,
                0b01 => Ecn::Ect1,
                0b10 => Ecn::Ect0,
                _ => Ecn::Ce,
            },
        },
        transport,
        flow: FlowId(0),
        service: Service::Reliable,
    }
}

fn round_trip(p: &Packet) -> Vec<u8> {
    let bytes = encode_ipv4(p);
    assert_eq!(bytes.len() as u32, p.ip.total_len, "datagram length");
    assert_eq!(&decode(&bytes), p);
    bytes
}

// ---------------------------------------------------------------------------------------
// Checksums

#[test]
fn rfc1071_worked_example() {
    // RFC 1071 §3: the words 0001 f203 f4f5 f6f7 sum to ddf2 (carries folded), whose one's
    // complement is 220d.
    let data = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
    assert_eq!(fold(ones_complement_sum(&data, 0)), 0xddf2);
    assert_eq!(internet_checksum(&data), 0x220d);
    // An odd length pads the last byte on the right: 0001 f203 f400 → ...
    assert_eq!(internet_checksum(&data[..5]), naive_checksum(&data[..5]));
}

#[test]
fn ipv4_header_checksum_worked_by_hand() {
    // 4500 0073 0000 4000 4011 0000 c0a8 0001 c0a8 00c7: the words sum to 0x2479c; folding
    // gives 0x479e, so the checksum is !0x479e = 0xb861.
    let header = [
        0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8, 0x00,
        0x01, 0xc0, 0xa8, 0x00, 0xc7,
    ];
    assert_eq!(ones_complement_sum(&header, 0), 0x2479c);
    assert_eq!(internet_checksum(&header), 0xb861);
}

#[test]
fn our_ip_header_is_byte_for_byte_as_worked_out() {
    // A pure ACK from 10.0.0.1 to 10.0.0.2, ident 0x1c46, TTL 64, 40 bytes:
    // 4500 + 0028 + 1c46 + 4000 + 4006 + 0000 + 0a00 + 0001 + 0a00 + 0002 = 0xf577 with no
    // carry, and !0xf577 = 0x0a88.
    let p = Seg::new(true, 1, Some(1)).build();
    let bytes = encode_ipv4(&p);
    assert_eq!(
        &bytes[..20],
        &[
            0x45, 0x00, 0x00, 0x28, 0x1c, 0x46, 0x40, 0x00, 0x40, 0x06, 0x0a, 0x88, 0x0a, 0x00,
            0x00, 0x01, 0x0a, 0x00, 0x00, 0x02
        ]
    );
}

#[test]
fn tcp_checksum_covers_the_zero_payload_like_the_naive_sum() {
    // Odd payload lengths too: the shortcut (zeros add nothing) must agree with summing
    // every byte of pseudo-header, header and payload.
    for payload in [0, 1, 3, 536, 1447, 1448] {
        let p = Seg::new(true, 0xdead_beef, Some(0x0102_0304))
            .options(ts(0x1111_2222, 0x3333_4444))
            .payload(payload)
            .build();
        let bytes = encode_ipv4(&p);
        let seg = &bytes[20..];
        let mut pseudo = bytes[12..20].to_vec();
        pseudo.extend_from_slice(&[0, PROTO_TCP]);
        pseudo.extend_from_slice(&(seg.len() as u16).to_be_bytes());
        pseudo.extend_from_slice(seg);
        assert_eq!(naive_checksum(&pseudo), 0, "payload {payload}");
    }
}

// ---------------------------------------------------------------------------------------
// Round trips and options

#[test]
fn syn_with_mss_window_scale_sack_permitted_and_timestamps_round_trips() {
    let syn = Seg::new(true, 0x7000_0000, None)
        .control(Control::Syn)
        .options(syn_options(12_345, 0, 7))
        .build();
    assert_eq!(syn.ip.total_len, 20 + 20 + 20);
    let bytes = round_trip(&syn);
    // MSS 4 + SACK-permitted 2 + timestamps 10 + window scale 3 = 19 bytes, one NOP in front.
    assert_eq!(bytes[32], 0xa0, "data offset 10 words");
    assert_eq!(bytes[33], SYN);
    assert_eq!(
        &bytes[40..60],
        &[1, 2, 4, 0x05, 0xb4, 4, 2, 8, 10, 0, 0, 0x30, 0x39, 0, 0, 0, 0, 3, 3, 7]
    );
}

#[test]
fn data_fin_rst_and_flag_segments_round_trip() {
    let data = Seg::new(false, 5_000, Some(1_001))
        .options(ts(7, 8))
        .payload(1448)
        .build();
    let bytes = round_trip(&data);
    assert_eq!(bytes.len(), 20 + 32 + 1448);
    assert_eq!(
        &bytes[40..44],
        &[1, 1, 8, 10],
        "NOP NOP before a lone timestamp"
    );
    assert_eq!(bytes[33], ACK);

    let fin = Seg::new(true, 9_999, Some(6_448))
        .control(Control::Fin)
        .build();
    assert_eq!(encode_ipv4(&fin)[33], FIN | ACK);
    round_trip(&fin);

    let rst = Seg::new(true, 9_999, None).control(Control::Rst).build();
    assert_eq!(encode_ipv4(&rst)[33], RST);
    round_trip(&rst);

    let mut psh = Seg::new(true, 1, Some(2))
        .control(Control::Psh)
        .payload(100)
        .build();
    if let Some(s) = psh.tcp_mut() {
        s.header.ece = true;
        s.header.cwr = true;
    }
    assert_eq!(encode_ipv4(&psh)[33], PSH | ACK | ECE | CWR);
    round_trip(&psh);
}

/// RFC 3168 §5: the ECN field is the low two bits of the old TOS byte.
#[test]
fn ecn_codepoints_sit_in_the_low_bits_of_the_tos_byte_and_round_trip() {
    for (ecn, bits) in [
        (Ecn::NotEct, 0b00),
        (Ecn::Ect1, 0b01),
        (Ecn::Ect0, 0b10),
        (Ecn::Ce, 0b11),
    ] {
        let mut p = Seg::new(true, 1, Some(1)).payload(100).build();
        p.ip.ecn = ecn;
        let bytes = round_trip(&p);
        assert_eq!(bytes[1], bits, "{ecn:?}");
    }
}

#[test]
fn sack_blocks_round_trip_with_and_without_timestamps() {
    for n in 1..=3usize {
        let mut options = ts(100, 200);
        let blocks = [
            block(3_000, 4_448),
            block(5_896, 7_344),
            block(8_792, 10_240),
        ];
        options.sack_blocks = SackBlocks::from_slice(&blocks[..n]);
        let p = Seg::new(false, 1, Some(1_552)).options(options).build();
        let bytes = round_trip(&p);
        // 10 + 2 + 8n bytes: 20, 28, 36; no padding needed.
        assert_eq!(bytes.len(), 40 + 12 + 8 * n);
        assert_eq!(bytes[40 + 10], OPT_SACK);

        options.timestamp = None;
        let p = Seg::new(false, 1, Some(1_552)).options(options).build();
        let bytes = round_trip(&p);
        // 2 + 8n bytes: two NOPs in front, as Linux sends it.
        assert_eq!(&bytes[40..44], &[1, 1, OPT_SACK, (2 + 8 * n) as u8]);
    }
}

#[test]
fn options_pad_with_nops_to_encoded_len() {
    let cases = [
        (TcpOptions::default(), vec![]),
        (
            TcpOptions {
                mss: Some(536),
                ..Default::default()
            },
            vec![2, 4, 2, 24],
        ),
        (
            TcpOptions {
                window_scale: Some(14),
                ..Default::default()
            },
            vec![1, 3, 3, 14],
        ),
        (
            TcpOptions {
                sack_permitted: true,
                ..Default::default()
            },
            vec![1, 1, 4, 2],
        ),
        (
            TcpOptions {
                mss: Some(1460),
                sack_permitted: true,
                ..Default::default()
            },
            vec![1, 1, 2, 4, 5, 180, 4, 2],
        ),
    ];
    for (options, want) in cases {
        let bytes = encode_tcp_options(&options);
        assert_eq!(bytes.len() as u32, options.encoded_len(), "{options:?}");
        assert_eq!(bytes, want, "{options:?}");
        assert_eq!(decode_options(&bytes), options);
    }
}

#[test]
fn udp_round_trips_with_a_checksum() {
    let p = packet(
        CLIENT,
        SERVER,
        Transport::Udp(UdpDatagram {
            src_port: 5_000,
            dst_port: 5_001,
            payload_len: 101,
        }),
    );
    let bytes = round_trip(&p);
    assert_eq!(bytes.len(), 20 + 8 + 101);
}

#[test]
fn window_is_clamped_without_a_known_scale() {
    let p = Seg::new(true, 1, Some(1)).window(1_000_000).build();
    assert_eq!(be16(&encode_ipv4(&p), 20 + 14), 65_535);
    assert_eq!(be16(&encode_ipv4_with_window_shift(&p, 7), 20 + 14), 7_812);
    // A SYN's window is never scaled.
    let syn = Seg::new(true, 1, None)
        .control(Control::Syn)
        .window(70_000)
        .build();
    assert_eq!(
        be16(&encode_ipv4_with_window_shift(&syn, 7), 20 + 14),
        65_535
    );
}

// ---------------------------------------------------------------------------------------
// The file

struct Record {
    secs: u64,
    nanos: u64,
    datagram: Vec<u8>,
    has_options: bool,
}

fn raw_interface() -> Interface {
    Interface {
        name: "wireless".into(),
        description: "a test link".into(),
        link_type: pcapng::LINKTYPE_RAW,
    }
}

/// The Enhanced Packet Blocks of a pcapng file with one LINKTYPE_RAW interface.
fn read_capture(bytes: &[u8]) -> Vec<Record> {
    let le32 =
        |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    assert_eq!(le32(0), 0x0A0D_0D0A, "a section header block first");
    assert_eq!(le32(8), 0x1A2B_3C4D, "byte-order magic");
    let mut at = le32(4) as usize;
    assert_eq!(le32(at), 1, "then an interface description block");
    assert_eq!(u16::from_le_bytes([bytes[at + 8], bytes[at + 9]]), 101);
    assert_eq!(le32(at + 12), 65_535, "snaplen");
    at += le32(at + 4) as usize;
    let mut records = Vec::new();
    while at < bytes.len() {
        assert_eq!(le32(at), 6, "enhanced packet block");
        let total = le32(at + 4) as usize;
        let (incl, orig) = (le32(at + 20) as usize, le32(at + 24) as usize);
        assert_eq!(incl, orig, "captured length = original length");
        let nanos = (u64::from(le32(at + 12)) << 32) | u64::from(le32(at + 16));
        records.push(Record {
            secs: nanos / 1_000_000_000,
            nanos: nanos % 1_000_000_000,
            datagram: bytes[at + 28..at + 28 + incl].to_vec(),
            has_options: total > 32 + incl.next_multiple_of(4),
        });
        at += total;
    }
    assert_eq!(at, bytes.len());
    records
}

fn window_field(datagram: &[u8]) -> u16 {
    be16(datagram, 20 + 14)
}

#[test]
fn writer_scales_windows_once_both_syns_announced_a_shift() {
    let mut w = PcapWriter::new(Vec::new(), raw_interface()).unwrap();
    let t = |ms: u64| SimTime::ZERO + SimDuration::from_millis(ms);
    let syn = Seg::new(true, 100, None)
        .control(Control::Syn)
        .options(syn_options(1, 0, 7))
        .build();
    let early = Seg::new(true, 101, Some(1)).window(1_000_000).build();
    let syn_ack = Seg::new(false, 500, Some(101))
        .control(Control::Syn)
        .options(syn_options(2, 1, 6))
        .build();
    let client = Seg::new(true, 101, Some(501)).window(1_000_000).build();
    let server = Seg::new(false, 501, Some(101)).window(200_000).build();
    for (ms, p) in [
        (0, &syn),
        (1, &early),
        (2, &syn_ack),
        (3, &client),
        (1_500, &server),
    ] {
        w.write(t(ms), p).unwrap();
    }
    let records = read_capture(&w.into_inner().unwrap());
    assert_eq!(records.len(), 5);
    // Before the SYN-ACK only one side has announced: no scaling yet, so clamped.
    assert_eq!(window_field(&records[1].datagram), 65_535);
    assert_eq!(window_field(&records[3].datagram), (1_000_000 >> 7) as u16);
    assert_eq!(window_field(&records[4].datagram), (200_000 >> 6) as u16);
    assert_eq!((records[4].secs, records[4].nanos), (1, 500_000_000));
    for r in &records {
        decode(&r.datagram);
    }
}

#[test]
fn writer_refuses_packets_it_cannot_encode_faithfully() {
    let mut w = PcapWriter::new(Vec::new(), raw_interface()).unwrap();
    let mut bad_len = Seg::new(true, 1, Some(1)).payload(100).build();
    bad_len.ip.total_len += 1;
    let e = w.write(SimTime::ZERO, &bad_len).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
    assert!(e.to_string().contains("fix_length"), "{e}");

    let mut too_long = Seg::new(true, 1, Some(1)).payload(70_000).build();
    too_long.fix_length();
    assert!(w.write(SimTime::ZERO, &too_long).is_err());

    let mut wrong_proto = Seg::new(true, 1, Some(1)).build();
    wrong_proto.ip.protocol = PROTO_UDP;
    assert!(w.write(SimTime::ZERO, &wrong_proto).is_err());

    let mut options = syn_options(1, 0, 7);
    options.sack_blocks = SackBlocks::from_slice(&[block(1, 2), block(3, 4), block(5, 6)]);
    let crowded = Seg::new(true, 1, Some(1)).options(options).build();
    assert!(w.write(SimTime::ZERO, &crowded).is_err());

    // Nothing but the headers was written.
    assert!(read_capture(&w.into_inner().unwrap()).is_empty());
}

#[test]
fn create_writes_a_file_that_reads_back() {
    let path =
        std::env::temp_dir().join(format!("lastmile-pcap-test-{}.pcapng", std::process::id()));
    let (mut w, fresh) = PcapWriter::create(&path, raw_interface()).unwrap();
    let p = Seg::new(true, 1, Some(1)).payload(10).build();
    w.write(SimTime::from_nanos(1_234_567_890), &p).unwrap();
    w.finish().unwrap();
    fresh.commit().unwrap();
    let bytes = std::fs::read(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    let records = read_capture(&bytes);
    assert_eq!((records[0].secs, records[0].nanos), (1, 234_567_890));
    assert_eq!(decode(&records[0].datagram), p);
    assert!(!records[0].has_options);
}

#[test]
fn a_noted_record_keeps_its_datagram_and_carries_options() {
    let mut w = PcapWriter::new(Vec::new(), raw_interface()).unwrap();
    let p = Seg::new(true, 1, Some(1)).payload(10).build();
    let note = Note {
        comment: Some("lost on the air".into()),
        flags: pcapng::flags::OUTBOUND | pcapng::flags::CRC_ERROR,
    };
    w.write_noted(SimTime::ZERO, &p, &note).unwrap();
    let records = read_capture(&w.into_inner().unwrap());
    assert_eq!(decode(&records[0].datagram), p);
    assert!(records[0].has_options);
}

/// A short conversation for checking with tshark:
/// `cargo test -p lastmile-core write_sample_capture_for_tshark -- --ignored --nocapture`,
/// then `tshark -r <file> -o tcp.check_checksum:TRUE -o ip.check_checksum:TRUE -z expert -q`.
/// The file goes to `$LASTMILE_PCAP_OUT`, or `lastmile-sample.pcapng` in the temp directory.
#[test]
#[ignore]
fn write_sample_capture_for_tshark() {
    let path = std::env::var_os("LASTMILE_PCAP_OUT")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("lastmile-sample.pcapng"));
    let (mut w, fresh) = PcapWriter::create(&path, raw_interface()).unwrap();
    let mss = 1448;
    let (c0, s0) = (1_000u32, 5_000u32);
    let mut t = SimTime::ZERO;
    let mut send = |gap_us: u64, p: Packet| {
        t += SimDuration::from_micros(gap_us);
        w.write(t, &p).unwrap();
    };
    send(
        0,
        Seg::new(true, c0, None)
            .control(Control::Syn)
            .options(syn_options(1, 0, 7))
            .build(),
    );
    send(
        50_000,
        Seg::new(false, s0, Some(c0 + 1))
            .control(Control::Syn)
            .options(syn_options(100, 1, 7))
            .build(),
    );
    send(
        50_000,
        Seg::new(true, c0 + 1, Some(s0 + 1))
            .window(1 << 20)
            .options(ts(2, 100))
            .build(),
    );
    // Four segments; the second is lost on the wireless hop.
    for k in 0..4u32 {
        let seg = Seg::new(true, c0 + 1 + k * mss, Some(s0 + 1))
            .window(1 << 20)
            .options(ts(3 + k, 100))
            .payload(mss)
            .build();
        if k != 1 {
            send(12_000, seg);
        }
    }
    let una = c0 + 1 + mss;
    send(
        40_000,
        Seg::new(false, s0 + 1, Some(una))
            .window(1 << 20)
            .options(ts(101, 3))
            .build(),
    );
    let mut sack = ts(102, 5);
    sack.sack_blocks.push(block(una + mss, una + 3 * mss));
    send(
        12_000,
        Seg::new(false, s0 + 1, Some(una))
            .window(1 << 20)
            .options(sack)
            .build(),
    );
    send(
        1_000,
        Seg::new(false, s0 + 1, Some(una))
            .window(1 << 20)
            .options(TcpOptions {
                sack_blocks: SackBlocks::from_slice(&[block(una + mss, una + 3 * mss)]),
                ..ts(103, 6)
            })
            .build(),
    );
    // Retransmission, then the cumulative ACK.
    send(
        20_000,
        Seg::new(true, una, Some(s0 + 1))
            .control(Control::Psh)
            .window(1 << 20)
            .options(ts(8, 103))
            .payload(mss)
            .build(),
    );
    let end = c0 + 1 + 4 * mss;
    send(
        40_000,
        Seg::new(false, s0 + 1, Some(end))
            .window(1 << 20)
            .options(ts(104, 8))
            .build(),
    );
    // Close: FIN, FIN, ACK.
    send(
        1_000,
        Seg::new(true, end, Some(s0 + 1))
            .control(Control::Fin)
            .window(1 << 20)
            .options(ts(9, 104))
            .build(),
    );
    send(
        40_000,
        Seg::new(false, s0 + 1, Some(end + 1))
            .control(Control::Fin)
            .window(1 << 20)
            .options(ts(105, 9))
            .build(),
    );
    send(
        40_000,
        Seg::new(true, end + 1, Some(s0 + 2))
            .window(1 << 20)
            .options(ts(10, 105))
            .build(),
    );
    // A UDP datagram and an ECN-marked segment of another connection.
    send(
        1_000,
        packet(
            CLIENT,
            SERVER,
            Transport::Udp(UdpDatagram {
                src_port: 50_000,
                dst_port: 50_001,
                payload_len: 101,
            }),
        ),
    );
    let mut ecn = Seg::new(true, 77, Some(88)).payload(3).build();
    if let Some(s) = ecn.tcp_mut() {
        s.header.src_port = 40_001;
        s.header.ece = true;
        s.header.cwr = true;
    }
    send(1_000, ecn);
    w.finish().unwrap();
    fresh.commit().unwrap();
    println!("wrote {}", path.display());
}
