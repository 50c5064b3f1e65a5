//! Placeholder with the final signatures; the real state machine replaces this file.

use super::api::*;
use crate::engine::SimTime;
use crate::packet::TcpSegment;

#[derive(Debug)]
pub struct TcpConnection {
    cfg: TcpConfig,
    stats: TcpStats,
}

impl TcpConnection {
    /// Active open: the SYN goes out on the first `poll`/`on_timeout`… (see `connect`).
    pub fn new(cfg: TcpConfig) -> Self {
        TcpConnection {
            cfg,
            stats: TcpStats::default(),
        }
    }
    /// Active open now: emits the SYN.
    pub fn connect(&mut self, now: SimTime, out: &mut TcpOutbox) {
        let _ = (now, out, &self.cfg);
    }
    /// Passive open.
    pub fn listen(&mut self) {}
    /// A segment from the peer arrived; `origin_time` is the one the packet carried.
    pub fn on_segment(
        &mut self,
        now: SimTime,
        seg: &TcpSegment,
        origin_time: SimTime,
        out: &mut TcpOutbox,
    ) {
        let _ = (now, seg, origin_time, out);
    }
    /// The deadline returned by `poll_timeout` was reached.
    pub fn on_timeout(&mut self, now: SimTime, out: &mut TcpOutbox) {
        let _ = (now, out);
    }
    /// The earliest time at which `on_timeout` must be called.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        None
    }
    /// The application makes `bytes` more bytes available to send.
    pub fn app_write(&mut self, now: SimTime, bytes: u64, out: &mut TcpOutbox) {
        let _ = (now, bytes, out);
    }
    /// The application will write nothing more: send FIN once all data is out.
    pub fn app_close(&mut self, now: SimTime, out: &mut TcpOutbox) {
        let _ = (now, out);
    }
    pub fn state(&self) -> TcpState {
        TcpState::Closed
    }
    pub fn stats(&self) -> &TcpStats {
        &self.stats
    }
    /// True once both directions are closed (TIME_WAIT or CLOSED after a FIN exchange).
    pub fn is_finished(&self) -> bool {
        false
    }
}
