//! Wtcp (stub: forwards everything).

use super::config::WtcpSpec;
use super::{AgentInput, AgentOutbox};
use crate::engine::SimTime;
use crate::metrics::AgentSummary;

#[derive(Clone, Debug)]
pub struct WtcpAgent {
    _spec: WtcpSpec,
}

impl WtcpAgent {
    pub fn new(spec: WtcpSpec) -> Self {
        WtcpAgent { _spec: spec }
    }
    pub fn handle(&mut self, _now: SimTime, _input: AgentInput<'_>, _out: &mut AgentOutbox) {}
    pub fn poll_timeout(&self) -> Option<SimTime> {
        None
    }
    pub fn summary(&self, _end: SimTime) -> AgentSummary {
        AgentSummary {
            kind: "wtcp".into(),
            ..Default::default()
        }
    }
}
