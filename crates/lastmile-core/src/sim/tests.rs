//! The world with members leaving and joining a cell mid-run (stable ids): the
//! events pending for a station that left find it gone and do nothing, the others go on,
//! and a node that joins again is a new station that carries traffic.

use crate::engine::SimTime;
use crate::ids::NodeId;
use crate::net::CellId;
use crate::scenario::{load_str, Format};

use super::build::build;
use super::world::{Event, StopReason, TimerOwner, World};
use super::RunOptions;

/// Two mobiles behind an access point, TULIP over FAMA-NCS (MAC and link timers both in
/// use), a bulk transfer to each.
const WLAN: &str = r#"
name = "leave-join"
stop_time = "60s"
[topology]
preset = "wlan"
mobiles = 2
wired = { rate = "10Mbps", delay = "2ms" }
wireless = { rate = "2Mbps", delay = "1us", mac = "fama", link = "tulip",
             errors = { model = "per", per = 0.05 } }
[[flow]]
src = "fh"
dst = "mh1"
tcp = { variant = "newreno", mss = "1000B" }
app = { kind = "bulk", bytes = "200KB" }
[[flow]]
src = "fh"
dst = "mh2"
tcp = { variant = "newreno", mss = "1000B" }
app = { kind = "bulk", bytes = "200KB" }
"#;

fn world() -> World {
    world_of(WLAN)
}

/// The world of the TOML scenario `text`, built with seed 1 and default options.
pub(super) fn world_of(text: &str) -> World {
    let s = load_str(text, Format::Toml, "t.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
    let plan = crate::scenario::plan(&s).expect("plans");
    build(&plan, &RunOptions::default(), 1).expect("builds")
}

/// Runs event by event until the clock reaches `t` (or the run ends).
fn run_to(w: &mut World, t: SimTime) -> Option<StopReason> {
    while w.queue.peek_time().is_some_and(|next| next <= t) {
        let limit = w.queue.events_processed() + 1;
        if let Some(reason) = w.run_until(limit).expect("no error") {
            return Some(reason);
        }
    }
    None
}

fn at_ms(ms: u64) -> SimTime {
    SimTime::ZERO + crate::engine::SimDuration::from_millis(ms)
}

/// Events pending for station `m` of the cell: arrivals and its MAC's timer.
fn pending_for(w: &World, m: u32) -> usize {
    w.queue
        .pending()
        .filter(|(_, e)| match e {
            Event::CellRxStart { station, .. } | Event::CellRxEnd { station, .. } => station.0 == m,
            Event::Timer { timer, .. } => w.timers.owner(*timer).is_some_and(|o| {
                matches!(o, TimerOwner::Mac { station, .. } | TimerOwner::Link { station, .. }
                    if station.0 == m)
            }),
            _ => false,
        })
        .count()
}

#[test]
fn events_pending_for_a_station_that_left_are_harmless() {
    let mut w = world();
    let (mh2, cell) = (NodeId(3), CellId(0));
    assert_eq!(w.nodes[mh2.index()].name, "mh2");
    let mut left_with_pending = false;
    // Leave at the first moment something is pending for mh2 (station 2) after 300 ms.
    let mut t = 300;
    while !left_with_pending {
        assert!(
            run_to(&mut w, at_ms(t)).is_none(),
            "still running at {t} ms"
        );
        left_with_pending = pending_for(&w, 2) > 0;
        t += 1;
    }
    w.cell_leave(cell, mh2);
    assert!(!w.cells[0].stations[2].present);
    let end = w.run_until(u64::MAX).expect("no error");
    assert_eq!(end, Some(StopReason::StopTime));
    let (f1, f2) = (&w.flows[0], &w.flows[1]);
    assert!(f1.all_delivered(), "the other mobile's transfer completes");
    assert!(
        !f2.all_delivered(),
        "nothing reaches a mobile outside the cell"
    );
    assert!(
        w.cells[0].stats.to_absent_drops > 0,
        "its packets are discarded at the AP"
    );
}

#[test]
fn a_node_that_joins_again_is_a_new_station_and_its_transfer_completes() {
    let mut w = world();
    let (mh2, cell) = (NodeId(3), CellId(0));
    assert!(run_to(&mut w, at_ms(400)).is_none());
    w.cell_leave(cell, mh2);
    assert!(run_to(&mut w, at_ms(900)).is_none());
    let station = w.cell_join(cell, mh2).expect("joins");
    assert_eq!(station.0, 3, "a new id; the old one stays retired");
    let end = w.run_until(u64::MAX).expect("no error");
    assert_eq!(
        end,
        Some(StopReason::Completed),
        "every byte once, in order"
    );
    assert!(w.flows.iter().all(|f| f.all_delivered()));
}
