//! A flow: its application (bulk or Poisson source), its two endpoints, and the checks and
//! metrics of the receiving application — every byte exactly once and in order, throughput
//! and per-packet delay as `experiments.md` defines them.

use crate::engine::{RngStream, SimDuration, SimTime};
use crate::ids::EndpointId;
use crate::tcp::Delivery;

use super::observe::Welford;
use super::SimError;

/// The application writing at the source.
#[derive(Clone, Debug)]
pub enum AppState {
    /// Everything written at start.
    Bulk,
    /// `packet_size` bytes at exponential intervals of mean `mean_gap`.
    Poisson {
        packet_size: u64,
        mean_gap: SimDuration,
        rng: Box<RngStream>,
    },
    /// Saturating UDP: a new `packet_size` datagram whenever one leaves the interface queue,
    /// for `duration` (no TCP endpoints are used).
    UdpSaturate {
        packet_size: u32,
        duration: SimDuration,
    },
}

#[derive(Clone, Debug)]
pub struct Flow {
    pub name: String,
    pub src: String,
    pub dst: String,
    pub variant: &'static str,
    pub app: AppState,
    pub source: EndpointId,
    pub sink: EndpointId,
    pub total_bytes: u64,
    /// Bytes the application has written so far.
    pub written: u64,
    /// Bytes delivered in order to the receiving application (= the next offset expected).
    pub delivered: u64,
    pub first_data_sent: Option<SimTime>,
    pub last_delivery: Option<SimTime>,
    pub delay: Welford,
    pub done: bool,
    /// A saturating UDP source stops writing at this time.
    pub udp_stop: Option<SimTime>,
}

impl Flow {
    pub fn all_delivered(&self) -> bool {
        self.delivered == self.total_bytes
    }

    pub fn on_data_sent(&mut self, now: SimTime) {
        if self.first_data_sent.is_none() {
            self.first_data_sent = Some(now);
        }
    }

    /// The receiving application gets `d`: it must be the next bytes, never beyond the end.
    pub fn on_delivery(&mut self, now: SimTime, d: &Delivery) -> Result<(), SimError> {
        if d.offset != self.delivered {
            return Err(SimError::Invariant(format!(
                "flow {}: the application received bytes at offset {} while expecting {} \
                 (duplicate or out-of-order delivery)",
                self.name, d.offset, self.delivered
            )));
        }
        self.delivered += u64::from(d.len);
        if self.delivered > self.total_bytes {
            return Err(SimError::Invariant(format!(
                "flow {}: {} bytes delivered but only {} were written",
                self.name, self.delivered, self.total_bytes
            )));
        }
        self.last_delivery = Some(now);
        self.delay
            .push(now.saturating_since(d.origin_time).as_secs_f64());
        Ok(())
    }

    pub fn next_poisson_gap(&mut self) -> SimDuration {
        match &mut self.app {
            AppState::Poisson { mean_gap, rng, .. } => {
                SimDuration::from_secs_f64(rng.exponential(mean_gap.as_secs_f64()))
            }
            AppState::Bulk | AppState::UdpSaturate { .. } => SimDuration::ZERO,
        }
    }

    /// First byte sent to last byte delivered (to `end` if nothing was delivered yet).
    pub fn transfer_time(&self, end: SimTime) -> SimDuration {
        match (self.first_data_sent, self.last_delivery) {
            (Some(first), Some(last)) => last.saturating_since(first),
            (Some(first), None) => end.saturating_since(first),
            _ => SimDuration::ZERO,
        }
    }
}
