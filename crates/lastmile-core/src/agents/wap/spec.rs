//! The WAP gateway's settings (`agent = { kind = "wap", ... }`): its TCP towards the origin
//! server, its buffer, and WTP's timers, counters and SAR sizes (defaults from Kannel's
//! `wap/wtp.h` and `wtp_resp.h`, which cite WTP's Appendix A), and their checks.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::WapAgent;
use crate::agents::{AgentSettings, AgentSetup};
use crate::engine::SimDuration;
use crate::errors::ScenarioError;
use crate::tcp::check::check_tcp;
use crate::tcp::spec::TcpSpec;
use crate::transport::wtp::WtpConfig;
use crate::units::{ByteSize, Duration};

/// WTP's settings at the gateway (the responder).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WtpSpec {
    /// R: the Result is sent again when not acknowledged within this. Default "7s" (Kannel
    /// `L_R_WITH_USER_ACK`, WTP Appendix A).
    #[serde(default = "default_retry")]
    pub retry_interval: Duration,
    /// A: a "hold on" Ack goes to the mobile when the result is not ready by then.
    /// Default "4s" (Kannel `L_A_WITH_USER_ACK`).
    #[serde(default = "default_ack")]
    pub ack_interval: Duration,
    /// W: how long a finished transaction is remembered. Default "30s" (Kannel
    /// `W_WITH_USER_ACK`).
    #[serde(default = "default_wait")]
    pub wait_timeout: Duration,
    /// MAX_RCR: retransmissions before the transaction is aborted. Default 8 (Kannel).
    #[serde(default = "default_max_rcr")]
    pub max_retransmissions: u32,
    /// AEC_MAX: hold-on Acks before the transaction is aborted. Default 6 (Kannel).
    #[serde(default = "default_aec_max")]
    pub max_ack_expirations: u32,
    /// User data per result segment. Default "576B" (Kannel `SAR_SEGM_SIZE`: "Nokia wap gw
    /// uses the size of 576").
    #[serde(default = "default_segment")]
    pub segment: ByteSize,
    /// Segments per group; each group is acknowledged before the next goes. Default 3
    /// (Kannel `SAR_GROUP_LEN`).
    #[serde(default = "default_group")]
    pub group: u8,
}

fn default_retry() -> Duration {
    Duration::from_secs(7)
}
fn default_ack() -> Duration {
    Duration::from_secs(4)
}
fn default_wait() -> Duration {
    Duration::from_secs(30)
}
fn default_max_rcr() -> u32 {
    crate::transport::wtp::MAX_RCR
}
fn default_aec_max() -> u32 {
    crate::transport::wtp::AEC_MAX
}
fn default_segment() -> ByteSize {
    ByteSize(576)
}
fn default_group() -> u8 {
    3
}

impl Default for WtpSpec {
    fn default() -> Self {
        WtpSpec {
            retry_interval: default_retry(),
            ack_interval: default_ack(),
            wait_timeout: default_wait(),
            max_retransmissions: default_max_rcr(),
            max_ack_expirations: default_aec_max(),
            segment: default_segment(),
            group: default_group(),
        }
    }
}

impl WtpSpec {
    /// The responder's configuration (the initiator's retry interval keeps its default).
    pub fn config(&self) -> WtpConfig {
        WtpConfig {
            responder_retry: self.retry_interval.sim(),
            ack_interval: self.ack_interval.sim(),
            wait_timeout: self.wait_timeout.sim(),
            max_rcr: self.max_retransmissions,
            aec_max: self.max_ack_expirations,
            sar_segment_bytes: self.segment.bytes().min(u64::from(u32::MAX)) as u32,
            sar_group: self.group,
            ..WtpConfig::default()
        }
    }
}

/// A WAP gateway (survey §2.3): WTP class 2 transactions with the mobile, TCP with the
/// origin server (the flow's source), one object fetched per transaction.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WapSpec {
    /// The gateway's receive buffer towards the origin server (its TCP window). Default
    /// "64KB".
    #[serde(default = "default_buffer")]
    pub buffer: ByteSize,
    /// The gateway's TCP towards the origin server. Default: the flow defaults.
    #[serde(default)]
    pub tcp: TcpSpec,
    /// WTP at the gateway. Default: Kannel's values (each key's doc).
    #[serde(default)]
    pub wtp: WtpSpec,
}

fn default_buffer() -> ByteSize {
    ByteSize(64_000)
}

impl Default for WapSpec {
    fn default() -> Self {
        WapSpec {
            buffer: default_buffer(),
            tcp: TcpSpec::default(),
            wtp: WtpSpec::default(),
        }
    }
}

impl AgentSettings for WapSpec {
    type Agent = WapAgent;
    const KIND: &'static str = "wap";

    fn build(&self, setup: &AgentSetup<'_>) -> WapAgent {
        WapAgent::new(self.clone(), setup.stream("wap/isn"))
    }

    fn check(&self) -> Result<(), ScenarioError> {
        check_tcp("tcp", &self.tcp)?;
        if self.buffer < self.tcp.mss {
            return Err(ScenarioError::bad_value(
                "buffer",
                format!("\"{}\"", self.buffer),
                format!("room for at least one segment (mss = {})", self.tcp.mss),
            ));
        }
        let w = &self.wtp;
        let positive = [
            ("wtp.retry_interval", w.retry_interval),
            ("wtp.ack_interval", w.ack_interval),
            ("wtp.wait_timeout", w.wait_timeout),
        ];
        for (path, d) in positive {
            if d.sim() == SimDuration::ZERO {
                return Err(ScenarioError::bad_value(
                    path,
                    format!("\"{d}\""),
                    "a time greater than zero",
                ));
            }
        }
        if w.segment.bytes() == 0 || w.segment.bytes() > 65_000 {
            return Err(ScenarioError::bad_value(
                "wtp.segment",
                format!("\"{}\"", w.segment),
                "1B to 65000B (a segment travels in one UDP datagram)",
            ));
        }
        if !(1..=32).contains(&w.group) {
            return Err(ScenarioError::bad_value(
                "wtp.group",
                w.group.to_string(),
                "1 to 32 segments (a Negative Ack names the missing ones of a group)",
            ));
        }
        Ok(())
    }
}
