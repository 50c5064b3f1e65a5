//! Applications: what a flow's source offers its transport, as pure state machines like
//! the protocols (`handle(now, AppInput, &mut AppOutbox)` and `poll_timeout()`), and the
//! scenario's `app = { kind = ... }` table (`AppSpec`) that builds them.
//!
//! * `bulk` — writes everything at once and closes (FTP in the seeds: TULIP §5, WTCP §4).
//! * `poisson` — fixed-size writes at exponential intervals (TULIP §5's Poisson source).
//! * `udp_saturate` — keeps its interface queue non-empty with UDP datagrams for a while
//!   (the saturation throughput of Bianchi 2000, for MAC tests).
//! * `request_response` — a web-like client at the destination fetching objects from a
//!   server at the source, with think times (over TCP, I-TCP, WAP, WTCP-Sinha).
//!
//! An application asks for actions (`AppAction`): open its connection, write, close, send
//! a datagram, or finish; the world applies them to the flow's TCP endpoint or routes the
//! datagrams, and wakes the application at its `poll_timeout` — the first wake-up is the
//! flow's `start`. Applications that react to their traffic get `AppInput::DatagramLeft`
//! when one of their datagrams leaves the interface queue; the web-like and background
//! sources to come (request/response with think times, long-lived transfers between any
//! two nodes) fit the same interface, with more inputs as they need them.
//!
//! Left out: applications at the receiving end (the sink reads everything at once) and
//! data in both directions.

mod bulk;
mod poisson;
pub mod request_response;
mod udp_saturate;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::engine::{RngStream, SimDuration, SimTime};
use crate::errors::ScenarioError;
use crate::units::{ByteSize, Duration, Rate, DURATION_MAX};

pub use bulk::Bulk;
pub use poisson::Poisson;
pub use request_response::{ObjectRecord, RequestResponse, RequestResponseSpec};
pub use udp_saturate::{UdpSaturate, UDP_PAYLOAD_MAX};

/// The application at the flow's source.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum AppSpec {
    /// Write `bytes` at once and close: a bulk transfer (FTP in the seeds).
    Bulk {
        /// The transfer size.
        bytes: ByteSize,
    },
    /// Write `packet_size` bytes at exponentially distributed intervals, averaging `rate`,
    /// until `bytes` have been written (TULIP §5: a Poisson source offering 1 Mbps).
    Poisson {
        /// The mean offered rate.
        rate: Rate,
        /// The size of each write. Default "1400B".
        #[serde(default = "default_poisson_packet")]
        packet_size: ByteSize,
        /// The total to write before closing.
        bytes: ByteSize,
    },
    /// A saturating UDP source: keeps its interface queue non-empty with `packet_size`
    /// datagrams for `duration`; the sink counts what arrives (for MAC tests). The source
    /// must sit on a wireless cell.
    UdpSaturate {
        /// UDP payload per datagram. Default "1472B" (a 1500-byte IP datagram).
        #[serde(default = "default_udp_packet")]
        packet_size: ByteSize,
        /// How long the source sends.
        duration: Duration,
    },
    /// A web-like client at `dst` fetching `objects` objects of `object` bytes from a server
    /// at `src`, each after a request of `request` bytes and `think_time` after the
    /// previous object; each object's completion time is reported.
    RequestResponse(RequestResponseSpec),
}

fn default_udp_packet() -> ByteSize {
    ByteSize(1472)
}

fn default_poisson_packet() -> ByteSize {
    ByteSize(1400)
}

/// What the run-size estimate needs to know of an application over a path.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OfferedLoad {
    /// Frames the whole transfer needs.
    pub frames: f64,
    /// Seconds it needs at the path's bottleneck.
    pub needs_s: f64,
    /// Its frames are acknowledged (a TCP transfer): frames flow both ways.
    pub acked: bool,
}

impl AppSpec {
    /// The total bytes the application will write.
    pub fn total_bytes(&self) -> u64 {
        match self {
            AppSpec::Bulk { bytes } | AppSpec::Poisson { bytes, .. } => bytes.0,
            AppSpec::UdpSaturate { .. } => 0,
            AppSpec::RequestResponse(rr) => rr.total_bytes(),
        }
    }

    /// True if the application runs over the flow's TCP connection.
    pub fn uses_tcp(&self) -> bool {
        !matches!(self, AppSpec::UdpSaturate { .. })
    }

    /// The application's state machine; it wakes first at `start`. Random streams derive
    /// from `seed` and the flow's index.
    pub fn build(&self, start: SimTime, seed: u64, flow_index: usize) -> AnyApp {
        match self {
            AppSpec::Bulk { bytes } => AnyApp::Bulk(Bulk::new(start, bytes.bytes())),
            AppSpec::Poisson {
                rate,
                packet_size,
                bytes,
            } => {
                let rng = RngStream::derive(seed, &format!("flow/{flow_index}/app"));
                AnyApp::Poisson(Box::new(Poisson::new(
                    start,
                    packet_size.bytes().max(1),
                    SimDuration::transmission(packet_size.bytes() * 8, rate.bps()),
                    bytes.bytes(),
                    rng,
                )))
            }
            AppSpec::UdpSaturate {
                packet_size,
                duration,
            } => AnyApp::UdpSaturate(UdpSaturate::new(
                start,
                packet_size.bytes().min(UDP_PAYLOAD_MAX) as u32,
                duration.sim(),
            )),
            AppSpec::RequestResponse(rr) => {
                AnyApp::RequestResponse(Box::new(RequestResponse::new(start, rr.clone())))
            }
        }
    }

    /// The frames and time the application's transfer needs over a path with segments of
    /// `mss_bytes` and a bottleneck of `bottleneck_bps` (for `sim::check`'s estimate).
    pub fn offered_load(&self, mss_bytes: f64, bottleneck_bps: f64) -> OfferedLoad {
        match self {
            AppSpec::Bulk { bytes } => {
                let b = bytes.bytes() as f64;
                OfferedLoad {
                    frames: (b / mss_bytes).ceil(),
                    needs_s: b * 8.0 / bottleneck_bps,
                    acked: true,
                }
            }
            AppSpec::Poisson {
                rate,
                packet_size,
                bytes,
            } => {
                let b = bytes.bytes() as f64;
                let write = (packet_size.bytes().max(1) as f64).min(mss_bytes);
                let bps = bottleneck_bps.min(rate.bps() as f64);
                OfferedLoad {
                    frames: (b / write).ceil(),
                    needs_s: b * 8.0 / bps,
                    acked: true,
                }
            }
            AppSpec::UdpSaturate {
                packet_size,
                duration,
            } => {
                let d = duration.sim().as_secs_f64();
                let bits = packet_size.bytes().max(1) as f64 * 8.0;
                OfferedLoad {
                    frames: (d * bottleneck_bps / bits).ceil(),
                    needs_s: d,
                    acked: false,
                }
            }
            AppSpec::RequestResponse(rr) => {
                let n = f64::from(rr.objects);
                let object = rr.object.bytes() as f64;
                let request = rr.request.bytes() as f64;
                OfferedLoad {
                    frames: n * ((object / mss_bytes).ceil() + (request / mss_bytes).ceil()),
                    needs_s: n
                        * ((object + request) * 8.0 / bottleneck_bps
                            + rr.think_time.sim().as_secs_f64()),
                    acked: true,
                }
            }
        }
    }

    /// What the types alone cannot check; paths are relative to the `app` table.
    pub fn check(&self) -> Result<(), ScenarioError> {
        match self {
            AppSpec::UdpSaturate {
                packet_size,
                duration,
            } => {
                if packet_size.bytes() == 0 || packet_size.bytes() > UDP_PAYLOAD_MAX {
                    return Err(ScenarioError::bad_value(
                        "packet_size",
                        format!("\"{}B\"", packet_size.bytes()),
                        "1B to 65507B (a UDP payload in an IPv4 datagram)",
                    ));
                }
                if duration.sim().is_zero() {
                    return Err(ScenarioError::bad_value(
                        "duration",
                        format!("\"{duration}\""),
                        "a time greater than zero",
                    ));
                }
                Ok(())
            }
            AppSpec::Bulk { .. } | AppSpec::Poisson { .. } if self.total_bytes() == 0 => Err(
                ScenarioError::bad_value("bytes", "\"0B\"".into(), "a size greater than zero"),
            ),
            AppSpec::Bulk { .. } => Ok(()),
            AppSpec::RequestResponse(rr) => rr.check(),
            AppSpec::Poisson {
                rate, packet_size, ..
            } => check_poisson(*rate, *packet_size),
        }
    }
}

fn check_poisson(rate: Rate, packet_size: ByteSize) -> Result<(), ScenarioError> {
    if packet_size.bytes() == 0 {
        return Err(ScenarioError::bad_value(
            "packet_size",
            "\"0B\"".into(),
            "at least 1B",
        ));
    }
    if rate.bps() == 0 {
        return Err(ScenarioError::bad_value(
            "rate",
            format!("\"{}bps\"", rate.bps()),
            "a positive rate (e.g. \"1Mbps\")",
        ));
    }
    // The mean gap between writes feeds an exponential draw added to the clock.
    let gap = SimDuration::transmission(packet_size.bytes() * 8, rate.bps());
    if gap > DURATION_MAX {
        return Err(ScenarioError::bad_value(
            "rate",
            format!("\"{rate}\""),
            format!(
                "a rate at which one write of packet_size ({packet_size}) takes at most \
                 {DURATION_MAX} on average"
            ),
        ));
    }
    Ok(())
}

/// An input to an application.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AppInput {
    /// The deadline from `poll_timeout` was reached; the first is the flow's start.
    Timer,
    /// One of the application's datagrams left its interface queue for the link layer.
    DatagramLeft,
    /// `bytes` more were delivered in order at one end of the flow (to applications that
    /// want it, `AnyApp::wants_deliveries`).
    Delivered { at: AppEnd, bytes: u64 },
}

/// One end of a flow.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AppEnd {
    /// The flow's `src` (the server of a request/response application).
    Source,
    /// The flow's `dst` (its client).
    Sink,
}

/// What an application asks the world to do, in order.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AppAction {
    /// Open the flow's TCP connection (active open).
    Connect,
    /// Hand `bytes` more to TCP.
    Write(u64),
    /// Close the sending direction once everything written is sent.
    Close,
    /// Send one UDP datagram of this many payload bytes to the flow's destination.
    Datagram { payload_bytes: u32 },
    /// The flow's destination (a client) sends a request of `bytes` asking for an object
    /// of `reply_bytes` (over WAP, a WTP transaction).
    Request { bytes: u64, reply_bytes: u64 },
    /// The application is done (an application without TCP ends its flow itself).
    Finish,
}

/// The actions of one call into an application.
#[derive(Clone, Debug, Default)]
pub struct AppOutbox {
    pub actions: Vec<AppAction>,
}

/// The applications, dispatched without allocation (conventions, rule 3).
#[derive(Clone, Debug)]
pub enum AnyApp {
    Bulk(Bulk),
    Poisson(Box<Poisson>),
    UdpSaturate(UdpSaturate),
    RequestResponse(Box<RequestResponse>),
}

impl AnyApp {
    pub fn handle(&mut self, now: SimTime, input: AppInput, out: &mut AppOutbox) {
        match self {
            AnyApp::Bulk(a) => a.handle(now, input, out),
            AnyApp::Poisson(a) => a.handle(now, input, out),
            AnyApp::UdpSaturate(a) => a.handle(now, input, out),
            AnyApp::RequestResponse(a) => a.handle(now, input, out),
        }
    }

    /// When the application next wants `AppInput::Timer`.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        match self {
            AnyApp::Bulk(a) => a.poll_timeout(),
            AnyApp::Poisson(a) => a.poll_timeout(),
            AnyApp::UdpSaturate(a) => a.poll_timeout(),
            AnyApp::RequestResponse(a) => a.poll_timeout(),
        }
    }

    /// True if the application is told of deliveries at both ends (`AppInput::Delivered`).
    pub fn wants_deliveries(&self) -> bool {
        matches!(self, AnyApp::RequestResponse(_))
    }

    /// The objects of a request/response application, with their times.
    pub fn objects(&self) -> Option<&[ObjectRecord]> {
        match self {
            AnyApp::RequestResponse(a) => Some(a.objects()),
            _ => None,
        }
    }

    /// True if the application runs over the flow's TCP connection (false: it sends
    /// datagrams and ends its flow with `AppAction::Finish`).
    pub fn uses_tcp(&self) -> bool {
        !matches!(self, AnyApp::UdpSaturate(_))
    }
}

#[cfg(test)]
mod tests;
