//! The cell's link frames while its MACs and its air hold them (module notes of
//! `sim::cell`): each frame a link layer hands its MAC is kept once, here, and the MACs,
//! their outputs, the air's in-flight table and the events carry a 4-byte `FrameRef` to
//! it instead of the frame (a `LinkFrame` is about 190 bytes; a data frame used to be
//! copied a dozen times between its `Enqueue` and its delivery).
//!
//! A frame is held by the MAC it was given to (from its `Enqueue` until the MAC's
//! `TxSuccess` / `TxFailure` for it, or until FAMA-NCS hands it back) and by each of its
//! transmissions on the air (until the last member it reaches has had its end). It leaves
//! the slab, its slot to be reused, when the last holder lets it go. The MACs never look
//! inside a payload: the glue reads the frame here where it needs it (the data packet for
//! the accounting, a delivered frame for the receiving link layer).

use crate::wireless::link::LinkFrame;

/// A frame in the cell's `FrameSlab`: what the cell's MACs carry as their payload.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct FrameRef(u32);

/// The frames held, each with its count of holders.
#[derive(Debug, Default)]
pub struct FrameSlab {
    slots: Vec<(LinkFrame, u32)>,
    free: Vec<u32>,
}

impl FrameSlab {
    /// Keeps `frame` with `holders` holders (0 for one that only the air will hold: it
    /// leaves once its transmission has ended everywhere).
    pub fn insert(&mut self, frame: LinkFrame, holders: u32) -> FrameRef {
        match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = (frame, holders);
                FrameRef(i)
            }
            None => {
                self.slots.push((frame, holders));
                FrameRef(self.slots.len() as u32 - 1)
            }
        }
    }

    pub fn get(&self, r: FrameRef) -> &LinkFrame {
        let (frame, holders) = &self.slots[r.0 as usize];
        debug_assert!(
            *holders > 0 || !self.free.contains(&r.0),
            "a freed frame read"
        );
        frame
    }

    /// One more holder of `r`.
    pub fn hold(&mut self, r: FrameRef) {
        self.slots[r.0 as usize].1 += 1;
    }

    /// One holder of `r` fewer; the frame leaves with its last.
    pub fn release(&mut self, r: FrameRef) {
        let holders = &mut self.slots[r.0 as usize].1;
        debug_assert!(*holders > 0, "a frame released more often than held");
        *holders -= 1;
        if *holders == 0 {
            self.free.push(r.0);
        }
    }

    /// The holder that inserted `r` lets it go without freeing it: a frame whose only
    /// holders from now on are its transmissions (a MAC's in-floor reply, which it sends
    /// once and never signals about).
    pub fn disown(&mut self, r: FrameRef) {
        let holders = &mut self.slots[r.0 as usize].1;
        debug_assert!(*holders > 0, "a frame disowned more often than held");
        *holders -= 1;
    }

    /// Frames held now.
    #[cfg(test)]
    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::test_datagram;

    fn frame(id: u64) -> LinkFrame {
        LinkFrame::Plain(test_datagram(id, 128))
    }

    /// Runs `path` with `sets` for 20 s, checking every 500 events and at the end that
    /// each cell's slab holds exactly the frames its MACs and its air name (a frame freed
    /// early would be named but gone; one never freed, held unnamed). Returns its cells.
    fn check_frames_held(path: &std::path::Path, sets: &[String]) -> usize {
        let mut sets = sets.to_vec();
        sets.push("stop_time=20s".into());
        let what = format!("{} {sets:?}", path.display());
        let s = crate::scenario::load_path(path, &sets).unwrap_or_else(|e| panic!("{what}: {e}"));
        let plan = crate::scenario::plan(&s).expect("plan");
        let options = crate::sim::RunOptions::default();
        let mut w = crate::sim::build::build(&plan, &options, 1).expect("build");
        let check = |w: &crate::sim::world::World| {
            for c in &w.cells {
                let (live, named) = c.frames_held();
                if c.mac_accelerated {
                    // In-floor replies the MAC has yet to send: at most one a station.
                    assert!(live >= named && live - named <= c.stations.len(), "{what}");
                } else {
                    assert_eq!(live, named, "{what}: cell {}", c.name);
                }
            }
        };
        let mut events = 0u64;
        while let Some((now, event)) = w.queue.pop_until(w.stop_time) {
            w.dispatch(now, event).expect("runs");
            events += 1;
            if events.is_multiple_of(500) {
                check(&w);
            }
        }
        check(&w);
        w.cells.len()
    }

    /// Every built-in example, the 802.11 benchmark cell, and TULIP's chain under each MAC
    /// with each link layer.
    #[test]
    fn the_slab_holds_the_frames_the_macs_and_the_air_name_and_no_other() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let examples = root.join("python/lastmile/examples");
        let mut files: Vec<_> = std::fs::read_dir(&examples)
            .expect("examples")
            .map(|e| e.expect("entry").path())
            .collect();
        files.push(root.join("bench/scenarios/wifi.toml"));
        files.sort();
        let mut cells = 0;
        for path in &files {
            cells += check_frames_held(path, &[]);
        }
        for mac in ["dcf", "fama", "ideal", "duplex"] {
            for link in ["tulip", "none", "rlp", "stop_and_wait", "airmail", "dda"] {
                let sets = [
                    format!("topology.wireless.mac={mac}"),
                    format!("topology.wireless.link={link}"),
                    "topology.wireless.errors.ber=5e-5".to_string(),
                ];
                cells += check_frames_held(&examples.join("tulip-basic.toml"), &sets);
            }
        }
        assert!(cells >= 27, "cells checked: {cells}");
    }

    #[test]
    fn a_frame_stays_until_its_last_holder_lets_it_go_and_its_slot_is_reused() {
        let mut slab = FrameSlab::default();
        let a = slab.insert(frame(1), 1); // the MAC's
        slab.hold(a); // a transmission on the air
        slab.release(a); // the MAC's TxSuccess comes first
        assert_eq!(slab.get(a), &frame(1), "the air still holds it");
        assert_eq!(slab.live(), 1);
        slab.release(a); // its last arrival ended
        assert_eq!(slab.live(), 0);
        let b = slab.insert(frame(2), 1);
        assert_eq!(b, a, "the slot is reused");
        assert_eq!(slab.get(b), &frame(2));
    }
}
