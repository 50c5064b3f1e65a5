//! Asking for the next packet's endpoint and flow ahead (`World::prefetch_endpoints`) is a
//! hint: on a dumbbell with enough flows that the run asks, every endpoint named ahead is
//! the one the node's demultiplexing map gives for the packet, with the packet's key (so
//! the delivery takes it without probing the map); the flow asked for with it (the
//! endpoint's number halved) is the packet's; every packet delivered to an endpoint off a
//! link had its endpoint named; a wrong name is not taken; and the run ends with the
//! summary (its event count included) of the same run that never asks.

use super::report::summarize;
use super::world::{Event, StopReason, World};
use super::Unobserved;
use crate::packet::Transport;

/// 400 NewReno flows over a 10 ms bottleneck, started 2.5 ms apart: 800 endpoints, over
/// `ENDPOINT_PREFETCH_BYTES`, so the run asks.
const DUMBBELL: &str = r#"
name = "prefetch-dumbbell"
seed = 1
stop_time = "1.5s"
[topology]
nodes = ["src", "r", "dst"]
links = [
  { from = "src", to = "r", rate = "4000Mbps", delay = "1ms", queue = "1600pkt" },
  { from = "r", to = "dst", rate = "400Mbps", delay = "10ms", queue = "1600pkt" },
]
[[flow]]
name = "bulk"
count = 400
src = "src"
dst = "dst"
stagger = "2500us"
tcp = { variant = "newreno", mss = "1460B", rwnd = "64KB" }
app = { kind = "bulk", bytes = "1GB" }
"#;

fn world() -> World {
    super::tests::world_of(DUMBBELL)
}

/// The endpoint `deliver_in_place` looks up for the packet first on `link`'s direction
/// `dir`, if it is a TCP segment addressed to the far end.
fn looked_up(w: &World, link: usize, dir: usize) -> Option<u32> {
    let next = w.links[link].propagating[dir].front().expect("a packet");
    let to = w.links[link].dirs[dir].to;
    let packet = w.packets.get(next.slot);
    let node = &w.nodes[to.index()];
    if packet.ip.dst != node.addr || !matches!(packet.transport, Transport::Tcp(_)) {
        return None;
    }
    let (src_port, dst_port) = packet.transport.ports();
    node.demux
        .get(&(dst_port, packet.ip.src, src_port))
        .map(|e| e.0)
}

#[test]
fn the_endpoint_named_ahead_is_the_one_the_delivery_reads() {
    let mut w = world();
    assert!(w.prefetch_endpoints, "800 endpoints are over the threshold");
    w.allow_quiet_ends();
    let (mut named, mut delivered) = (0, 0);
    while let Some(now) = w.queue.peek_time() {
        if now > w.stop_time {
            break;
        }
        if let Some((_, Event::Propagated { link, dir })) = w
            .queue
            .pending()
            .find(|&(t, e)| t == now && matches!(e, Event::Propagated { .. }))
        {
            let (l, d) = (link.index(), dir.index());
            let next = *w.links[l].propagating[d].front().expect("a packet");
            let (hint, packet) = (next.endpoint, w.packets.get(next.slot));
            match looked_up(&w, l, d) {
                Some(e) => {
                    assert_eq!(hint.0, e, "the endpoint named ahead is the one looked up");
                    let (src_port, dst_port) = packet.transport.ports();
                    assert_eq!(
                        w.endpoints[hint.index()].demux_key,
                        (dst_port, packet.ip.src, src_port),
                        "the delivery takes the endpoint named ahead without the map"
                    );
                    assert_eq!(
                        hint.index() / 2,
                        packet.flow.index(),
                        "the flow asked for ahead is the packet's"
                    );
                    delivered += 1;
                }
                None => assert_eq!(hint.0, u32::MAX, "no endpoint named for a transit packet"),
            }
            named += 1;
        }
        let limit = w.queue.events_processed() + 1;
        if w.run_until(limit).expect("no error").is_some() {
            break;
        }
    }
    assert!(
        named > 10_000 && delivered > 5_000,
        "{named} arrivals, {delivered} to endpoints"
    );
}

#[test]
fn asking_ahead_changes_no_result() {
    let summary = |ask: bool| {
        let mut w = world();
        w.prefetch_endpoints = ask;
        let reason = w.run(&mut Unobserved).expect("runs");
        assert_eq!(reason, StopReason::StopTime);
        let s = summarize(&w, "prefetch", 1, w.stop_time, reason, 0.0);
        serde_json::to_string(&s).expect("serializes")
    };
    assert_eq!(summary(true), summary(false));
}

/// A packet named ahead for an endpoint whose key is not its own (here another flow's sink
/// on the same node) is delivered by the node's map all the same: the run that names it
/// wrongly ends with the summary of the run that names it right.
#[test]
fn a_wrong_name_is_not_taken() {
    let run = |misname: bool| {
        let mut w = world();
        w.allow_quiet_ends();
        // The 5,000th arrival for an endpoint off a link: renamed to the flow next to its
        // own (the same side, on the same node) in the run that misnames it.
        let mut deliveries = 0;
        loop {
            let now = w.queue.peek_time().expect("events");
            if let Some((_, &Event::Propagated { link, dir })) = w
                .queue
                .pending()
                .find(|&(t, e)| t == now && matches!(e, Event::Propagated { .. }))
            {
                let (l, d) = (link.index(), dir.index());
                if looked_up(&w, l, d).is_some() {
                    deliveries += 1;
                    if deliveries == 5_000 {
                        let next = w.links[l].propagating[d].front_mut().expect("a packet");
                        if misname {
                            next.endpoint.0 ^= 2;
                        }
                        break;
                    }
                }
            }
            let limit = w.queue.events_processed() + 1;
            assert!(w.run_until(limit).expect("no error").is_none(), "runs on");
        }
        let reason = w.run(&mut Unobserved).expect("runs");
        let s = summarize(&w, "prefetch", 1, w.stop_time, reason, 0.0);
        serde_json::to_string(&s).expect("serializes")
    };
    assert_eq!(run(true), run(false));
}
