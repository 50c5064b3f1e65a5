//! Snoop's settings (`agent = { kind = "snoop", ... }`, or `[base_station.snoop]`), with
//! TULIP §4's configuration as defaults, and their checks. Doc comments become the JSON
//! Schema's descriptions.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::SnoopAgent;
use crate::agents::{AgentSettings, AgentSetup, OnHandoff};
use crate::errors::ScenarioError;
use crate::units::Duration;
use crate::units::TIMEOUT_FACTOR_MAX;

/// Which Snoop: the BSD code as the TULIP paper ran it, or ns-2's.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SnoopVariant {
    /// The BSD Snoop as the TULIP paper configured it (TULIP §4; docs/models/snoop.md).
    #[default]
    Tulip,
    /// ns-2.35's `LL/LLSnoop` (its tcp/snoop.cc): its timer, estimator, dupack counting and
    /// retransmissions behind the queue, no persist timer, no burst-loss rule.
    Ns2,
}

/// Snoop, configured by default as the TULIP paper ran it (TULIP §4).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SnoopSpec {
    /// "tulip" (default): the BSD code as the TULIP paper ran it; "ns2": ns-2.35's Snoop,
    /// for runs set beside ns-2 (docs/models/snoop.md). With "ns2" only `initial_rtt`
    /// (ns-2's `srtt_`), `cache_packets`, `max_local_retransmits` and `retransmit_ahead`
    /// apply.
    #[serde(default)]
    pub variant: SnoopVariant,
    /// Duplicate ACKs that trigger a local retransmission. Default 2 (TULIP §4: "after the
    /// receipt of 2 duplicate acknowledgments"; ns-2 and Click retransmit on the 2nd too).
    #[serde(default = "default_snoop_dupacks")]
    pub dupack_threshold: u32,
    /// Floor of the local retransmission timer. Default "40ms" (TULIP §4).
    #[serde(default = "default_snoop_min_timeout")]
    pub min_timeout: Duration,
    /// The retransmission timer is `timeout_factor`·rtt. Default 2 (TULIP §4: "2 * rtt").
    #[serde(default = "default_snoop_factor")]
    pub timeout_factor: u32,
    /// Period of the persist timer that senses idle periods. Default "200ms" (TULIP §4).
    #[serde(default = "default_snoop_persist")]
    pub persist: Duration,
    /// "Snoop w/fix" (TULIP §5.2): take no rtt sample from a retransmitted segment. Default
    /// false: the original code's rtt-inflation bug stays reproducible.
    #[serde(default)]
    pub fix: bool,
    /// The rtt estimate before the first sample. Default "100ms" (ns-2 `srtt_`).
    #[serde(default = "default_snoop_initial_rtt")]
    pub initial_rtt: Duration,
    /// Segments cached per connection; beyond this new segments are forwarded uncached.
    /// Default 100 (ns-2 `SNOOP_MAXWIND`).
    #[serde(default = "default_snoop_cache")]
    pub cache_packets: u32,
    /// Local retransmissions of one segment before Snoop leaves it to the sender.
    /// Default 10 (ns-2 `SNOOP_MAX_RXMIT`).
    #[serde(default = "default_snoop_max_rxmit")]
    pub max_local_retransmits: u32,
    /// On a base station a mobile leaves (`[[mobile]]`): "drop" (the cache is lost with
    /// the cell, soft state) or "transfer" (handed to the new base station's Snoop).
    /// Default "drop".
    #[serde(default)]
    pub handoff: OnHandoff,
    /// With `handoff = "transfer"`: from the mobile joining its new cell until the cache
    /// is there. Default "0s" (the Snoop paper primes the neighbours' caches in advance).
    #[serde(default)]
    pub handoff_latency: Duration,
    /// Send a local retransmission ahead of the data waiting in the base station's interface
    /// queue (Balakrishnan et al. 1995, Fig. 2: "Retransmit lost packet with high priority";
    /// the BSD code the TULIP paper ran), or behind it, as ns-2's `snoop_rxmit` does.
    /// Default: ahead with `variant = "tulip"`, behind with "ns2".
    #[serde(default)]
    pub retransmit_ahead: Option<bool>,
    /// Read the mobile's SACK blocks (RFC 2018; the flow's TCP needs SACK): a duplicate ACK
    /// with blocks retransmits locally every cached segment they leave as a hole, not just
    /// the oldest (Balakrishnan et al.'s selective-acknowledgment Snoop; the Linux netfilter
    /// Snoop's rule). Default false (the TULIP paper's Snoop).
    #[serde(default)]
    pub sack: bool,
}

fn default_snoop_dupacks() -> u32 {
    2
}
fn default_snoop_min_timeout() -> Duration {
    Duration::from_millis(40)
}
fn default_snoop_factor() -> u32 {
    2
}
fn default_snoop_persist() -> Duration {
    Duration::from_millis(200)
}
fn default_snoop_initial_rtt() -> Duration {
    Duration::from_millis(100)
}
fn default_snoop_cache() -> u32 {
    100
}
fn default_snoop_max_rxmit() -> u32 {
    10
}

impl Default for SnoopSpec {
    fn default() -> Self {
        SnoopSpec {
            variant: SnoopVariant::Tulip,
            dupack_threshold: default_snoop_dupacks(),
            min_timeout: default_snoop_min_timeout(),
            timeout_factor: default_snoop_factor(),
            persist: default_snoop_persist(),
            fix: false,
            initial_rtt: default_snoop_initial_rtt(),
            cache_packets: default_snoop_cache(),
            max_local_retransmits: default_snoop_max_rxmit(),
            handoff: OnHandoff::Drop,
            handoff_latency: Duration::default(),
            retransmit_ahead: None,
            sack: false,
        }
    }
}

impl AgentSettings for SnoopSpec {
    type Agent = SnoopAgent;
    const KIND: &'static str = "snoop";

    fn build(&self, _setup: &AgentSetup<'_>) -> SnoopAgent {
        SnoopAgent::new(self.clone())
    }

    fn check(&self) -> Result<(), ScenarioError> {
        if self.dupack_threshold == 0 {
            return Err(ScenarioError::bad_value(
                "dupack_threshold",
                "0".into(),
                "at least 1 duplicate ACK",
            ));
        }
        if !(1..=TIMEOUT_FACTOR_MAX).contains(&self.timeout_factor) {
            return Err(ScenarioError::bad_value(
                "timeout_factor",
                self.timeout_factor.to_string(),
                format!("a whole number from 1 to {TIMEOUT_FACTOR_MAX}"),
            ));
        }
        if self.persist.sim().is_zero() {
            return Err(ScenarioError::bad_value(
                "persist",
                format!("\"{}\"", self.persist),
                "a time greater than zero",
            ));
        }
        if self.variant == SnoopVariant::Ns2 {
            self.check_ns2()?;
        }
        if self.cache_packets == 0 {
            return Err(ScenarioError::bad_value(
                "cache_packets",
                "0".into(),
                "at least 1 segment",
            ));
        }
        Ok(())
    }
}

impl SnoopSpec {
    /// With `variant = "ns2"`, the settings ns-2's Snoop has no counterpart for must keep
    /// their defaults.
    fn check_ns2(&self) -> Result<(), ScenarioError> {
        let d = SnoopSpec::default();
        let tulip_only = [
            (
                "dupack_threshold",
                self.dupack_threshold != d.dupack_threshold,
            ),
            ("min_timeout", self.min_timeout != d.min_timeout),
            ("timeout_factor", self.timeout_factor != d.timeout_factor),
            ("persist", self.persist != d.persist),
            ("fix", self.fix != d.fix),
            ("handoff", self.handoff != d.handoff),
            ("handoff_latency", self.handoff_latency != d.handoff_latency),
            ("sack", self.sack != d.sack),
        ];
        match tulip_only.iter().find(|(_, set)| *set) {
            Some((key, _)) => Err(ScenarioError::problem(
                key,
                "applies only to variant = \"tulip\" (ns-2's Snoop has no such setting): \
                 remove it, or drop variant = \"ns2\"",
            )),
            None => Ok(()),
        }
    }
}
