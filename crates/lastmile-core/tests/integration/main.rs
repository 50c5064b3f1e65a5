//! The core's integration tests, as one test binary (one link step instead of one per
//! file): whole runs and scenario files through the public API only. Each module is one
//! theme; run one with `cargo test -p lastmile-core --test integration <module>::`.
//!
//! - `agents`: base-station agents end to end (Snoop, WTCP, I-TCP; exactly-once delivery).
//! - `base_stations`: the two forms of base stations in a scenario, several of them.
//! - `chain`: whole runs over the TULIP chain: timing, PER arithmetic, determinism.
//! - `congestion_control`: the `tcp.cc` algorithms on the chain against their documents.
//! - `energy`: the radios' time and energy per state over whole runs.
//! - `fuzz_loader`: the scenario loader under mutated files (proptest).
//! - `golden_summaries`: every example's summary against `tests/golden/summaries.json`.
//! - `hardening`: extreme scenarios, `check` against `run`, observers, large topologies.
//! - `layers`: no module imports from a floor above its own (`src/lib.rs`).
//! - `lle`: LLE-TCP end to end.
//! - `mobility`: handoffs, stale routes, M-TCP, fast retransmit and Freeze-TCP, agents across
//!   random handoffs.
//! - `reference_findings`: what the comparisons with ns-3 and ns-2 found (BBR with SACK,
//!   CUBIC's slow start, lost retransmissions under RACK-TLP, Vegas's fine-grained
//!   retransmission).
//! - `registry_goldens`: a golden case per entry of every family (congestion controls, MACs,
//!   link layers, agents, error models, apps, ...), the entries read from their schemas.
//! - `many_flows`: `count`, background traffic, groups and fairness, per-flow starts.
//! - `scenario_files`: the file format, its errors, overrides and schema.
//! - `snoop`: Snoop's repairs ahead of the base station's queue; its ns-2 variant's settings.
//! - `survey_mech`: the survey's §2 mechanisms (DDA, ELN, EBSN, Snoop with SACK) in whole runs.
//! - `tcp_family`: SACK, FACK, ECN through RED, the pcap read by tshark, the 2^32 wrap.
//! - `wide_area`: WAP and WTCP-Sinha end to end, request/response over every transport.
//! - `wireless`: the cell's MACs and link layers against hand-worked numbers.
//! - `wwan`: the network presets, RLP, link FEC and AIRMAIL end to end.

mod agents;
mod base_stations;
mod chain;
mod congestion_control;
mod energy;
mod fuzz_loader;
mod golden_summaries;
mod hardening;
mod layers;
mod lle;
mod many_flows;
mod mobility;
mod reference_findings;
mod registry_goldens;
mod scenario_files;
mod snoop;
mod survey_mech;
mod tcp_family;
mod wide_area;
mod wireless;
mod wwan;
