//! Itcp (stub: forwards everything).

use super::config::ItcpSpec;
use super::{AgentInput, AgentOutbox};
use crate::engine::SimTime;
use crate::metrics::AgentSummary;

#[derive(Clone, Debug)]
pub struct ItcpAgent {
    _spec: ItcpSpec,
}

impl ItcpAgent {
    pub fn new(spec: ItcpSpec, _rng: crate::engine::RngStream) -> Self {
        ItcpAgent { _spec: spec }
    }
    pub fn handle(&mut self, _now: SimTime, _input: AgentInput<'_>, _out: &mut AgentOutbox) {}
    pub fn poll_timeout(&self) -> Option<SimTime> {
        None
    }
    pub fn summary(&self, _end: SimTime) -> AgentSummary {
        AgentSummary {
            kind: "itcp".into(),
            ..Default::default()
        }
    }
}
