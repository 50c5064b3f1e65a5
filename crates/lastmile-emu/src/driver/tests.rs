//! The loop driven by a fake clock and scripted ports: packets leave exactly when the
//! simulated links say, a clock that runs away from the simulation shows as lag, one
//! stall of the loop is one stall in the report (when, how late), and the loop stops
//! when told or at its limit.

use std::cell::Cell;
use std::rc::Rc;

use lastmile_core::ids::FlowId;
use lastmile_core::packet::wire::{encode_ipv4_with_payload, parse_ipv4};
use lastmile_core::packet::{
    Control, Ecn, Ipv4Addr, Ipv4Header, Packet, PacketId, SeqNumber, Service, TcpHeader,
    TcpOptions, TcpSegment, Transport, DEFAULT_TTL, PROTO_TCP,
};
use lastmile_core::scenario::{load_str, Format};
use lastmile_core::sim::RunOptions;

use super::*;

/// A clock that moves only when told, and by `per_read` each time it is read (the cost
/// of the work between two readings, on a slow machine); with `stall` (at, by), the first
/// reading at or after `at` finds it `by` later (the loop's thread held off its CPU).
#[derive(Clone)]
struct FakeClock {
    now: Rc<Cell<Duration>>,
    per_read: Duration,
    stall: Rc<Cell<Option<(Duration, Duration)>>>,
}

impl Clock for FakeClock {
    fn now(&self) -> Duration {
        let mut t = self.now.get();
        if let Some((at, by)) = self.stall.get() {
            if t >= at {
                t += by;
                self.stall.set(None);
            }
        }
        self.now.set(t + self.per_read);
        t
    }
}

/// Ports whose hosts send `script` (time, port, datagram) and whose sends are logged.
struct ScriptedPorts {
    clock: Rc<Cell<Duration>>,
    script: Vec<(Duration, usize, Vec<u8>)>,
    sent: Vec<(Duration, usize, Vec<u8>)>,
}

impl Ports for ScriptedPorts {
    fn wait(&mut self, timeout: Duration) -> std::io::Result<()> {
        let now = self.clock.get();
        let next = self.script.first().map_or(Duration::MAX, |s| s.0);
        self.clock.set((now + timeout).min(next.max(now)));
        Ok(())
    }
    fn recv(&mut self, port: usize, buf: &mut [u8]) -> std::io::Result<Option<usize>> {
        match self.script.first() {
            Some((t, p, d)) if *t <= self.clock.get() && *p == port => {
                buf[..d.len()].copy_from_slice(d);
                let n = d.len();
                self.script.remove(0);
                Ok(Some(n))
            }
            _ => Ok(None),
        }
    }
    fn send(&mut self, port: usize, datagram: &[u8]) -> std::io::Result<()> {
        self.sent.push((self.clock.get(), port, datagram.to_vec()));
        Ok(())
    }
    fn count(&self) -> usize {
        2
    }
}

fn chain() -> Emulation {
    let text = r#"
name = "driver-test"
[topology]
preset = "chain"
wired = { rate = "10Mbps", delay = "2ms" }
wireless = { rate = "2Mbps", delay = "1ms" }
[[flow]]
src = "fh"
dst = "mh"
app = { kind = "bulk", bytes = "1MB" }
"#;
    let scenario = load_str(text, Format::Toml, "test", &[]).expect("loads");
    Emulation::new(&scenario, &RunOptions::default()).expect("builds")
}

/// A 60-byte SYN from the fixed host (10.0.0.1) to the mobile (10.0.0.3).
fn syn() -> Vec<u8> {
    let mut p = Packet {
        id: PacketId(0),
        origin_time: SimTime::ZERO,
        ip: Ipv4Header {
            src: Ipv4Addr::for_node(0),
            dst: Ipv4Addr::for_node(2),
            protocol: PROTO_TCP,
            ttl: DEFAULT_TTL,
            total_len: 0,
            ident: 1,
            ecn: Ecn::NotEct,
        },
        transport: Transport::Tcp(TcpSegment {
            header: TcpHeader {
                src_port: 40_000,
                dst_port: 5001,
                seq: SeqNumber(1),
                ack: None,
                control: Control::Syn,
                window: 64_240,
                options: TcpOptions {
                    mss: Some(1460),
                    window_scale: Some(7),
                    sack_permitted: true,
                    timestamp: Some((1, 0)),
                    ..Default::default()
                },
                ece: false,
                cwr: false,
                sender_in_slow_start: false,
            },
            payload_len: 0,
        }),
        flow: FlowId(0),
        service: Service::Unreliable,
    };
    p.fix_length();
    assert_eq!(p.size_bytes(), 60);
    encode_ipv4_with_payload(&p, 0, &[])
}

fn driver(
    per_read: Duration,
    script: Vec<(Duration, usize, Vec<u8>)>,
) -> Driver<FakeClock, ScriptedPorts> {
    let now = Rc::new(Cell::new(Duration::ZERO));
    let clock = FakeClock {
        now: Rc::clone(&now),
        per_read,
        stall: Rc::new(Cell::new(None)),
    };
    let ports = ScriptedPorts {
        clock: now,
        script,
        sent: Vec::new(),
    };
    Driver::new(chain(), clock, ports)
}

/// 60 bytes: 48 µs at 10 Mbps + 2 ms, then 240 µs at 2 Mbps + 1 ms.
const CHAIN_TRANSIT: Duration = Duration::from_micros(48 + 2_000 + 240 + 1_000);

#[test]
fn a_datagram_leaves_when_the_links_say_and_nothing_is_late() {
    let at = Duration::from_millis(5);
    let mut d = driver(Duration::ZERO, vec![(at, 0, syn())]);
    let stop = AtomicBool::new(false);
    let report = d.run(&stop, Duration::from_millis(100)).expect("runs");
    assert_eq!(report.ended, Ended::TimeLimit);
    assert_eq!((report.datagrams_in, report.datagrams_out), (1, 1));
    let (_, ports) = d.into_parts();
    let (left_at, port, datagram) = &ports.sent[0];
    assert_eq!(*port, 1);
    assert_eq!(*left_at, at + CHAIN_TRANSIT);
    let left = parse_ipv4(datagram).expect("whole");
    assert_eq!(left.packet.ip.ttl, DEFAULT_TTL - 1);
    assert!(report.lag.events >= 4, "{:?}", report.lag);
    assert_eq!(report.lag.late_events, 0);
    assert_eq!(report.lag.max_s, 0.0);
    assert!(report.lag.kept_up);
}

#[test]
fn a_clock_that_outruns_the_simulation_shows_as_lag() {
    // Every reading of the clock costs 3 ms: each event is processed late.
    let mut d = driver(Duration::from_millis(3), vec![(Duration::ZERO, 0, syn())]);
    let stop = AtomicBool::new(false);
    let report = d.run(&stop, Duration::from_millis(200)).expect("runs");
    assert!(report.lag.late_events > 0, "{:?}", report.lag);
    assert!(report.lag.max_s >= 3e-3);
    assert!(!report.lag.kept_up);
    let (_, ports) = d.into_parts();
    assert!(ports.sent[0].0 > CHAIN_TRANSIT, "it left late, as measured");
}

#[test]
fn one_stall_of_the_loop_is_one_stall_with_its_time_and_depth() {
    // The SYN enters at 5 ms and reaches the base station at 7.048 ms; the loop, waking
    // for that event, finds the clock 4 ms on: that event and the mobile's arrival
    // (8.288 ms) are processed at 11.048 ms, and the loop is on time again after.
    let mut d = driver(Duration::ZERO, vec![(Duration::from_millis(5), 0, syn())]);
    d.clock
        .stall
        .set(Some((Duration::from_millis(6), Duration::from_millis(4))));
    let stop = AtomicBool::new(false);
    let report = d.run(&stop, Duration::from_millis(100)).expect("runs");
    let lag = &report.lag;
    assert_eq!(lag.stalls, 1, "{lag:?}");
    let worst = lag.worst_stalls[0];
    assert_eq!(worst.at_s, 0.007_048);
    assert!((worst.lag_s - 0.004).abs() < 1e-12, "{worst:?}");
    assert_eq!(worst.events, lag.late_events);
    assert!(lag.late_events >= 2, "{lag:?}");
}

#[test]
fn the_loop_stops_when_told_and_at_its_limit() {
    let mut d = driver(Duration::ZERO, Vec::new());
    let stop = AtomicBool::new(true);
    let report = d.run(&stop, Duration::from_secs(10)).expect("runs");
    assert_eq!(report.ended, Ended::Stopped);
    assert_eq!(report.wall_s, 0.0);
    let mut d = driver(Duration::ZERO, Vec::new());
    let stop = AtomicBool::new(false);
    let report = d.run(&stop, Duration::from_millis(50)).expect("runs");
    assert_eq!(report.ended, Ended::TimeLimit);
    assert!((report.wall_s - 0.05).abs() < 1e-9, "{}", report.wall_s);
}
