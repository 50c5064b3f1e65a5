//! External ports driven by scripted real hosts: datagrams in at the fixed host, out at the
//! mobile at the simulated time the links give, with their bytes; Snoop's local
//! retransmissions carry the bytes the fixed host sent once.

use super::*;
use crate::engine::SimDuration;
use crate::packet::wire::{encode_ipv4_with_payload, parse_ipv4};
use crate::packet::{
    Control, Ecn, Ipv4Header, SeqNumber, TcpHeader, TcpOptions, TcpSegment, DEFAULT_TTL, PROTO_TCP,
};
use crate::scenario::{load_str, Format};

const FH_PORT: u16 = 40_000;
const MH_PORT: u16 = 5_001;

fn chain(extra: &str) -> Scenario {
    chain_with(extra, "")
}

/// The chain with `extra` keys on the wireless hop and `more` tables after it.
fn chain_with(extra: &str, more: &str) -> Scenario {
    let text = format!(
        r#"
name = "emu-test"
[topology]
preset = "chain"
wired = {{ rate = "10Mbps", delay = "2ms" }}
wireless = {{ rate = "2Mbps", delay = "1ms"{extra} }}
[[flow]]
src = "fh"
dst = "mh"
app = {{ kind = "bulk", bytes = "1MB" }}
{more}
"#
    );
    load_str(&text, Format::Toml, "test", &[]).expect("scenario loads")
}

/// A TCP datagram from `src` (node index) to `dst` as a real host would write it.
#[allow(clippy::too_many_arguments)]
fn datagram(
    from_fh: bool,
    seq: u32,
    ack: Option<u32>,
    control: Control,
    window_field: u32,
    options: TcpOptions,
    payload: &[u8],
) -> Vec<u8> {
    let (src, dst, sp, dp) = if from_fh {
        (0, 2, FH_PORT, MH_PORT)
    } else {
        (2, 0, MH_PORT, FH_PORT)
    };
    let mut p = Packet {
        id: PacketId(0),
        origin_time: SimTime::ZERO,
        ip: Ipv4Header {
            src: Ipv4Addr::for_node(src),
            dst: Ipv4Addr::for_node(dst),
            protocol: PROTO_TCP,
            ttl: DEFAULT_TTL,
            total_len: 0,
            ident: 77,
            ecn: Ecn::NotEct,
        },
        transport: Transport::Tcp(TcpSegment {
            header: TcpHeader {
                src_port: sp,
                dst_port: dp,
                seq: SeqNumber(seq),
                ack: ack.map(SeqNumber),
                control,
                window: window_field,
                options,
                ece: false,
                cwr: false,
                sender_in_slow_start: false,
            },
            payload_len: payload.len() as u32,
        }),
        flow: FlowId(0),
        service: Service::Unreliable,
    };
    p.fix_length();
    encode_ipv4_with_payload(&p, 0, payload)
}

fn syn_options() -> TcpOptions {
    TcpOptions {
        mss: Some(1460),
        window_scale: Some(7),
        sack_permitted: true,
        timestamp: Some((1, 0)),
        ..Default::default()
    }
}

fn run_until(emu: &mut Emulation, until: SimTime, out: &mut Vec<Departure>) {
    while emu.step(until).expect("steps").is_some() {}
    emu.take_departures(out);
}

fn at_ms(ms: u64) -> SimTime {
    SimTime::ZERO + SimDuration::from_millis(ms)
}

#[test]
fn a_syn_crosses_the_chain_in_the_links_time_and_keeps_its_options() {
    let mut emu = Emulation::new(&chain(""), &RunOptions::default()).expect("builds");
    let names: Vec<&str> = emu.ports().iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["fh", "mh"]);
    let syn = datagram(true, 1000, None, Control::Syn, 64_240, syn_options(), &[]);
    emu.inject(SimTime::ZERO, 0, &syn).expect("enters");
    let mut out = Vec::new();
    run_until(&mut emu, at_ms(100), &mut out);
    assert_eq!(out.len(), 1);
    let d = &out[0];
    assert_eq!(d.port, 1, "leaves at the mobile");
    // 60 bytes: 48 µs on the wire at 10 Mbps, 2 ms; 240 µs on the air at 2 Mbps, 1 ms.
    let expected = SimDuration::from_micros(48 + 2_000 + 240 + 1_000);
    assert_eq!(d.time, SimTime::ZERO + expected);
    let sent = parse_ipv4(&syn).expect("parses").packet;
    let left = parse_ipv4(&d.datagram).expect("left whole").packet;
    assert_eq!(left.ip.ttl, DEFAULT_TTL - 1, "one router on the way");
    assert_eq!(left.transport, sent.transport);
    assert_eq!(left.ip.ident, 77);
}

#[test]
fn data_leaves_with_its_bytes_and_its_window_scaled_back() {
    let mut emu = Emulation::new(&chain(""), &RunOptions::default()).expect("builds");
    let mut out = Vec::new();
    let syn = datagram(true, 1000, None, Control::Syn, 64_240, syn_options(), &[]);
    emu.inject(SimTime::ZERO, 0, &syn).expect("enters");
    run_until(&mut emu, at_ms(10), &mut out);
    let synack = datagram(
        false,
        5000,
        Some(1001),
        Control::Syn,
        65_160,
        syn_options(),
        &[],
    );
    emu.inject(at_ms(10), 1, &synack).expect("enters");
    run_until(&mut emu, at_ms(20), &mut out);
    assert_eq!(out.len(), 2);
    let payload: Vec<u8> = (0..1000u32).map(|i| (i * 7 % 256) as u8).collect();
    let data = datagram(
        true,
        1001,
        Some(5001),
        Control::Psh,
        501,
        TcpOptions::default(),
        &payload,
    );
    emu.inject(at_ms(20), 0, &data).expect("enters");
    run_until(&mut emu, at_ms(40), &mut out);
    let left = parse_ipv4(&out[2].datagram).expect("left whole");
    assert_eq!(left.payload, payload.as_slice());
    let h = left.packet.tcp().expect("tcp").header;
    assert_eq!(h.window, 501, "the field as the sender wrote it");
    assert_eq!(emu.report().ports[1].counters.packets_out, 2);
    assert_eq!(emu.report().payload.bytes_unknown, 0);
}

#[test]
fn what_is_not_tcp_or_udp_is_refused_and_counted() {
    let mut emu = Emulation::new(&chain(""), &RunOptions::default()).expect("builds");
    let mut v6 = datagram(true, 1, None, Control::Syn, 1, TcpOptions::default(), &[]);
    v6[0] = 0x60;
    emu.inject(SimTime::ZERO, 0, &v6).expect("counted");
    // A datagram claiming the mobile's address, sent from the fixed host's port.
    let foreign = datagram(false, 1, None, Control::Syn, 1, TcpOptions::default(), &[]);
    emu.inject(SimTime::ZERO, 0, &foreign).expect("counted");
    let r = emu.report();
    assert_eq!(r.ports[0].counters.dropped_not_ipv4, 1);
    assert_eq!(r.ports[0].counters.dropped_foreign_source, 1);
    assert_eq!(r.ports[0].counters.packets_in, 0);
    let mut out = Vec::new();
    run_until(&mut emu, at_ms(1_000), &mut out);
    assert!(out.is_empty(), "nothing entered the simulation");
}

/// A receiver as simple as can be: acknowledges the highest in-order byte of each data
/// segment that reaches it and checks its bytes against the pattern.
struct ScriptedReceiver {
    next: u32,
    isn: u32,
    bytes_checked: u64,
}

fn pattern(offset: u32) -> u8 {
    (offset.wrapping_mul(31) % 253) as u8
}

impl ScriptedReceiver {
    fn on_departure(&mut self, d: &Departure) -> Option<Vec<u8>> {
        let parsed = parse_ipv4(&d.datagram).expect("left whole");
        let h = parsed.packet.tcp().expect("tcp").header;
        if parsed.payload.is_empty() {
            return None;
        }
        let offset = h.seq.0 - self.isn - 1;
        for (i, &b) in parsed.payload.iter().enumerate() {
            assert_eq!(b, pattern(offset + i as u32), "byte {}", offset + i as u32);
        }
        self.bytes_checked += parsed.payload.len() as u64;
        if h.seq.0 == self.next {
            self.next += parsed.payload.len() as u32;
        }
        let ack = datagram(
            false,
            9001,
            Some(self.next),
            Control::None,
            500,
            TcpOptions::default(),
            &[],
        );
        Some(ack)
    }
}

#[test]
fn snoop_resends_the_real_bytes_the_fixed_host_sent_once() {
    let per = ", errors = { model = \"per\", per = 0.2 }";
    let mut emu = Emulation::new(
        &chain_with(per, "[base_station]\nagent = \"snoop\""),
        &RunOptions::default(),
    )
    .expect("builds");
    let mut out = Vec::new();
    let isn = 100;
    let syn = datagram(
        true,
        isn,
        None,
        Control::Syn,
        64_240,
        TcpOptions::default(),
        &[],
    );
    emu.inject(SimTime::ZERO, 0, &syn).expect("enters");
    let synack = datagram(
        false,
        9000,
        Some(isn + 1),
        Control::Syn,
        65_535,
        TcpOptions::default(),
        &[],
    );
    emu.inject(SimTime::ZERO, 1, &synack).expect("enters");
    // Twenty segments of 500 bytes, each sent once by the fixed host.
    let mss = 500u32;
    for i in 0..20u32 {
        let payload: Vec<u8> = (0..mss).map(|j| pattern(i * mss + j)).collect();
        let seg = datagram(
            true,
            isn + 1 + i * mss,
            Some(9001),
            Control::None,
            65_535,
            TcpOptions::default(),
            &payload,
        );
        emu.inject(at_ms(u64::from(i)), 0, &seg).expect("enters");
    }
    let mut receiver = ScriptedReceiver {
        next: isn + 1,
        isn,
        bytes_checked: 0,
    };
    let mut t = 0;
    while t < 20_000 && receiver.next < isn + 1 + 20 * mss {
        t += 1;
        run_until(&mut emu, at_ms(t), &mut out);
        for d in out.drain(..) {
            if d.port != 1 {
                continue;
            }
            if let Some(ack) = receiver.on_departure(&d) {
                emu.inject(d.time, 1, &ack).expect("enters");
            }
        }
    }
    assert_eq!(
        receiver.next,
        isn + 1 + 20 * mss,
        "every byte reached the mobile"
    );
    let (summary, report) = emu
        .finish(at_ms(t), StopReason::Completed, 0.0)
        .expect("finishes");
    let agent = summary.agent.expect("snoop's counters");
    assert!(
        agent.local_retransmissions > 0,
        "the hop lost some: {agent:?}"
    );
    assert!(
        receiver.bytes_checked > u64::from(20 * mss),
        "resent bytes checked too"
    );
    assert_eq!(report.payload.bytes_unknown, 0);
    assert_eq!(report.ports[0].counters.packets_in, 21);
}

#[test]
fn an_emulation_can_move_to_the_thread_that_drives_it() {
    fn movable<T: Send>() {}
    movable::<Emulation>();
}
