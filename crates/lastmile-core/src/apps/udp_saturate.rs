//! A saturating UDP source, for the MAC's saturation throughput (Bianchi 2000, the
//! analytical model `wireless::bianchi` implements): from the flow's start it keeps two
//! datagrams ahead of its station's link layer — a new one each time one leaves the
//! interface queue — so the MAC always has a frame waiting, for `duration`; then it
//! finishes its flow. A lost datagram is never resent.

use super::{AppAction, AppInput, AppOutbox};
use crate::engine::{SimDuration, SimTime};

/// The largest UDP payload in an IPv4 datagram: 65535 − 20 (IP) − 8 (UDP) bytes.
pub const UDP_PAYLOAD_MAX: u64 = 65_507;

/// Datagrams of `packet_size` bytes for `duration`, keeping the interface queue non-empty.
#[derive(Clone, Debug)]
pub struct UdpSaturate {
    start: SimTime,
    packet_size: u32,
    duration: SimDuration,
    /// Set at the start: when the source stops.
    stop: Option<SimTime>,
    finished: bool,
}

impl UdpSaturate {
    pub fn new(start: SimTime, packet_size: u32, duration: SimDuration) -> Self {
        UdpSaturate {
            start,
            packet_size,
            duration,
            stop: None,
            finished: false,
        }
    }

    pub fn handle(&mut self, now: SimTime, input: AppInput, out: &mut AppOutbox) {
        let datagram = AppAction::Datagram {
            payload_bytes: self.packet_size,
        };
        match (input, self.stop) {
            // Two, so that one always waits behind the one in service.
            (AppInput::Timer, None) => {
                self.stop = Some(now + self.duration);
                out.actions.extend([datagram, datagram]);
            }
            (AppInput::Timer, Some(stop)) if now >= stop && !self.finished => {
                self.finished = true;
                out.actions.push(AppAction::Finish);
            }
            (AppInput::DatagramLeft, Some(stop)) if now < stop => out.actions.push(datagram),
            _ => {}
        }
    }

    pub fn poll_timeout(&self) -> Option<SimTime> {
        match self.stop {
            None => Some(self.start),
            Some(stop) => (!self.finished).then_some(stop),
        }
    }
}
