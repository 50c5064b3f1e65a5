//! A mobile host's movement between cells, as a pure state machine (conventions rule 1):
//! `start`, then `handle(now, out)` whenever `poll_timeout()` comes, filling `out` with what
//! happens — the mobile leaves a cell, joins one, the gateway learns where it is, a handoff
//! is about to happen (Freeze-TCP's warning). The world (`sim::mobility`) applies them.
//!
//! The model is WTCP §6's: the mobile stays in a cell for a residence time (exponential with
//! a mean, drawn afresh in each cell, or at scheduled times); it then leaves the cell and,
//! after a handoff delay during which no cell reaches it, joins the next; the new base
//! station's routing update reaches the gateway `route_update_delay` later (per target cell),
//! and until then the gateway keeps sending the mobile's packets to the old base station.
//! With overlapping cells (Cáceres & Iftode, the survey §2.4.4.5) the mobile joins the new
//! cell at the handoff and leaves the old one `overlap` later: no outage. The residence in a
//! cell counts from joining it.
//!
//! Everything is deterministic: the draws come from one stream per mobile
//! (`mobility/<node>`), in the order residence, next cell, residence, ...
//!
//! Left out: positions, radio propagation and signal strength (a handoff happens when the
//! residence time says so), ping-pong suppression, and any handoff signalling other than
//! the routing update's delay.

#[cfg(test)]
mod tests;

use std::collections::BTreeSet;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::engine::{RngStream, SimDuration, SimTime};

/// Which cell a mobile moves to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum NextCell {
    /// The next of its `cells`, after the last the first (a walk along a row of cells).
    #[default]
    Next,
    /// One of the others, uniformly, from the random stream `mobility/<node>`.
    Random,
}

/// How long the mobile stays in a cell.
#[derive(Clone, Debug, PartialEq)]
pub enum Dwell {
    /// It never moves.
    Forever,
    /// Exponential with this mean.
    Exponential(SimDuration),
    /// Handoffs at these times (increasing); after the last it stays.
    Schedule(Vec<SimTime>),
}

/// A mobile's movement settings, with cells numbered 0..cells.
#[derive(Clone, Debug)]
pub struct MoverConfig {
    pub cells: usize,
    pub start: usize,
    pub dwell: Dwell,
    pub next: NextCell,
    pub handoff_delay: SimDuration,
    /// Per target cell: from joining it until the gateway's route changes.
    pub route_update_delay: Vec<SimDuration>,
    pub overlap: SimDuration,
    /// Freeze-TCP's lead: a `Warn` this long before each handoff (none without Freeze-TCP).
    pub warning: Option<SimDuration>,
}

/// What happens to the mobile.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Move {
    /// A handoff will break the mobile's connection to its cell at `at` (Freeze-TCP).
    Warn { at: SimTime },
    /// A handoff begins: from `from` towards `to`, out of reach of every cell for `outage`.
    Handoff {
        from: usize,
        to: usize,
        outage: SimDuration,
    },
    /// The cell no longer reaches the mobile.
    Leave { cell: usize },
    /// The cell reaches the mobile, which now sends through it (the handoff is complete).
    Join { cell: usize },
    /// The new base station's routing update reached the gateway.
    RouteUpdate { cell: usize },
}

/// The movement of one mobile.
#[derive(Clone, Debug)]
pub struct Mover {
    cfg: MoverConfig,
    rng: RngStream,
    /// The cell the mobile sends through (none while out of reach).
    current: Option<usize>,
    /// Cells that reach it (the current one, and the old one while cells overlap).
    attached: BTreeSet<usize>,
    /// When it next leaves its current cell, and for which.
    next_handoff: Option<(SimTime, usize)>,
    warn_at: Option<SimTime>,
    /// Out of reach: the cell it joins, and when.
    joining: Option<(SimTime, usize)>,
    /// Overlap: old cells it leaves later, by time.
    leaving: BTreeSet<(SimTime, usize)>,
    /// Routing updates on their way to the gateway, by time (then order of sending).
    updates: BTreeSet<(SimTime, u64, usize)>,
    sent_updates: u64,
    schedule_next: usize,
    started: bool,
}

impl Mover {
    pub fn new(cfg: MoverConfig, rng: RngStream) -> Self {
        Mover {
            cfg,
            rng,
            current: None,
            attached: BTreeSet::new(),
            next_handoff: None,
            warn_at: None,
            joining: None,
            leaving: BTreeSet::new(),
            updates: BTreeSet::new(),
            sent_updates: 0,
            schedule_next: 0,
            started: false,
        }
    }

    /// The cell the mobile sends through, if any.
    pub fn current(&self) -> Option<usize> {
        self.current
    }
    /// True if cell `cell` reaches the mobile.
    pub fn is_attached(&self, cell: usize) -> bool {
        self.attached.contains(&cell)
    }
    /// When the next handoff begins, if one is due.
    pub fn next_handoff(&self) -> Option<SimTime> {
        self.next_handoff.map(|(t, _)| t)
    }

    /// At the start of the run: the mobile is in its start cell and the gateway knows it.
    pub fn start(&mut self, now: SimTime, out: &mut Vec<Move>) {
        if self.started {
            return;
        }
        self.started = true;
        let cell = self.cfg.start;
        self.join(now, cell, out);
        out.push(Move::RouteUpdate { cell });
        self.updates.clear();
    }

    /// The earliest time something happens.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        [
            self.warn_at,
            self.next_handoff.map(|(t, _)| t),
            self.joining.map(|(t, _)| t),
            self.leaving.first().map(|&(t, _)| t),
            self.updates.first().map(|&(t, _, _)| t),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// Everything due by `now`, in time order (at equal times: warning, overlap leaves,
    /// the handoff, the join, routing updates).
    pub fn handle(&mut self, now: SimTime, out: &mut Vec<Move>) {
        while let Some(t) = self.poll_timeout().filter(|&t| t <= now) {
            self.step(t, out);
        }
    }

    fn step(&mut self, t: SimTime, out: &mut Vec<Move>) {
        if self.warn_at == Some(t) {
            self.warn_at = None;
            if let Some((at, _)) = self.next_handoff {
                out.push(Move::Warn { at });
            }
        } else if let Some(&(at, cell)) = self.leaving.first().filter(|(at, _)| *at == t) {
            self.leaving.remove(&(at, cell));
            if self.current != Some(cell) && self.attached.remove(&cell) {
                out.push(Move::Leave { cell });
            }
        } else if let Some((_, to)) = self.next_handoff.filter(|&(at, _)| at == t) {
            self.begin_handoff(t, to, out);
        } else if let Some((_, cell)) = self.joining.filter(|&(at, _)| at == t) {
            self.joining = None;
            self.join(t, cell, out);
        } else if let Some(&(at, seq, cell)) = self.updates.first() {
            self.updates.remove(&(at, seq, cell));
            out.push(Move::RouteUpdate { cell });
        }
    }

    fn begin_handoff(&mut self, t: SimTime, to: usize, out: &mut Vec<Move>) {
        self.next_handoff = None;
        self.warn_at = None;
        let Some(from) = self.current else { return };
        let overlap = !self.cfg.overlap.is_zero();
        let outage = if overlap {
            SimDuration::ZERO
        } else {
            self.cfg.handoff_delay
        };
        out.push(Move::Handoff { from, to, outage });
        if overlap {
            self.leaving.insert((t + self.cfg.overlap, from));
            self.join(t, to, out);
            return;
        }
        self.current = None;
        self.attached.remove(&from);
        out.push(Move::Leave { cell: from });
        if outage.is_zero() {
            self.join(t, to, out);
        } else {
            self.joining = Some((t + outage, to));
        }
    }

    /// The mobile joins `cell` at `t`: its routing update leaves, its stay there begins.
    fn join(&mut self, t: SimTime, cell: usize, out: &mut Vec<Move>) {
        self.leaving.retain(|&(_, c)| c != cell);
        if self.attached.insert(cell) {
            out.push(Move::Join { cell });
        }
        self.current = Some(cell);
        let delay = self
            .cfg
            .route_update_delay
            .get(cell)
            .copied()
            .unwrap_or_default();
        self.updates.insert((t + delay, self.sent_updates, cell));
        self.sent_updates += 1;
        self.plan_next(t, cell);
    }

    /// Draws when the mobile leaves `cell` (joined at `t`) and where it goes.
    fn plan_next(&mut self, t: SimTime, cell: usize) {
        let at = match &self.cfg.dwell {
            Dwell::Forever => None,
            Dwell::Exponential(mean) => {
                let secs = self.rng.exponential(mean.as_secs_f64());
                Some(t + SimDuration::from_secs_f64(secs))
            }
            Dwell::Schedule(times) => {
                let next = times.get(self.schedule_next).copied();
                self.schedule_next += 1;
                next.map(|at| at.max(t))
            }
        };
        let Some(at) = at else {
            self.next_handoff = None;
            return;
        };
        let n = self.cfg.cells;
        let to = match self.cfg.next {
            NextCell::Next => (cell + 1) % n,
            NextCell::Random => {
                let k = self.rng.below(n as u64 - 1) as usize;
                if k >= cell {
                    k + 1
                } else {
                    k
                }
            }
        };
        self.next_handoff = Some((at, to));
        self.warn_at = self
            .cfg
            .warning
            .map(|lead| SimTime::ZERO + at.saturating_since(SimTime::ZERO).saturating_sub(lead))
            .map(|w| w.max(t));
    }
}
