//! Opt-in packet capture (pcapng): every frame of the named links and cells, one file per
//! name, stamped at the start of its transmission (as a sniffer beside the sender sees it)
//! and marked with its fate once that is known.
//!
//! - A point-to-point link (`<name>.pcapng`, LINKTYPE_RAW): both directions' IPv4
//!   datagrams. A frame the error model dropped carries the "CRC error" flag and the
//!   comment `"lost on the air (<from> -> <to>)"`.
//! - A wireless cell (`<name>.pcapng`, 802.11 + radiotap): every frame on the medium, as a
//!   monitor-mode sniffer sees it — data frames with their datagram, the MAC's RTS, CTS and
//!   ACK, and the link layer's control frames (TULIP LACKs, stop-and-wait link ACKs); the
//!   comment gives the link-layer fields (TULIP sequence numbers, LACK vectors). A frame its
//!   addressee did not receive intact gets radiotap's "bad FCS", the "CRC error" flag and
//!   a comment naming the receiver and the cause (collision, channel errors, or the
//!   receiver was itself transmitting).
//!
//! A frame's fate is known only when its transmission ends, so records wait in a small
//! queue in start order and are written once every earlier one is settled: the file stays
//! in time order. Frames still on the air when the run ends are written with a comment
//! saying so. See `metrics::pcap` for the encodings.
//!
//! Under emulation (`sim::external`) datagrams carry the real bytes of the packets real
//! hosts sent (`with_payloads`); elsewhere their payload is zeros.

use std::collections::VecDeque;
use std::path::Path;
use std::sync::{Arc, Mutex};

use crate::engine::SimTime;
use crate::ids::{Direction, LinkId, NodeId};
use crate::metrics::fresh_file::FreshFile;
use crate::metrics::pcap::dot11::{
    encode_radiotap_frame, mac_address, Dot11Frame, Dot11Kind, ETHERTYPE_IPV4,
    ETHERTYPE_LOCAL_EXPERIMENTAL,
};
use crate::metrics::pcap::pcapng::flags;
use crate::metrics::pcap::{
    Interface, Note, PcapWriter, LINKTYPE_IEEE802_11_RADIOTAP, LINKTYPE_RAW,
};
use crate::packet::Packet;
use crate::wireless::link::LinkFrame;
use crate::wireless::mac::{FrameKind, MacFrame};
use crate::wireless::medium::{RxOutcome, TxId};

use super::external::PayloadStore;
use super::world::World;
use super::SimError;

/// What became of a frame at its addressee.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Fate {
    Unknown,
    Delivered,
    /// Not received intact; the comment's tail says why.
    Lost(String),
}

/// A record waiting for its fate (and for every earlier record's).
#[derive(Debug)]
struct Pending {
    time: SimTime,
    frame: Vec<u8>,
    comment: Option<String>,
    /// Whether the fate goes into the radiotap "bad FCS" flag (802.11 records).
    radiotap: bool,
    fate: Fate,
}

/// One capture file and its queue of unsettled records.
struct Capture {
    writer: PcapWriter,
    /// The file being written, renamed over `<link>.pcapng` when the capture finishes.
    file: FreshFile,
    pending: VecDeque<Pending>,
    /// The id of `pending[0]`; ids grow by one per record.
    front_id: u64,
    /// Link captures: the record of the frame on the wire in each direction.
    on_wire: [Option<u64>; 2],
    /// Cell captures: (transmission, record).
    on_air: Vec<(TxId, u64)>,
}

impl Capture {
    fn new((writer, file): (PcapWriter, FreshFile)) -> Self {
        Capture {
            writer,
            file,
            pending: VecDeque::new(),
            front_id: 0,
            on_wire: [None, None],
            on_air: Vec::new(),
        }
    }

    fn push(&mut self, record: Pending) -> u64 {
        self.pending.push_back(record);
        self.front_id + self.pending.len() as u64 - 1
    }

    fn settle(&mut self, id: u64, fate: Fate) -> std::io::Result<()> {
        if let Some(r) = id
            .checked_sub(self.front_id)
            .and_then(|i| self.pending.get_mut(i as usize))
        {
            if r.fate == Fate::Unknown {
                r.fate = fate;
            }
        }
        while self
            .pending
            .front()
            .is_some_and(|r| r.fate != Fate::Unknown)
        {
            let r = self.pending.pop_front().expect("checked");
            self.front_id += 1;
            self.write(r)?;
        }
        Ok(())
    }

    fn write(&mut self, mut r: Pending) -> std::io::Result<()> {
        let mut note = Note {
            comment: r.comment.take(),
            flags: flags::OUTBOUND,
        };
        let why = match &r.fate {
            Fate::Delivered => None,
            Fate::Lost(why) => {
                note.flags |= flags::CRC_ERROR;
                if r.radiotap {
                    // The radiotap Flags byte follows the 8-byte radiotap header.
                    r.frame[8] |= 0x40;
                }
                Some(format!("LOST {why}"))
            }
            Fate::Unknown => Some("still on the air when the run ended".to_string()),
        };
        if let Some(why) = why {
            note.comment = Some(match note.comment {
                Some(c) => format!("{why}; {c}"),
                None => why,
            });
        }
        self.writer.write_frame(r.time, &r.frame, &note)
    }

    fn finish(mut self) -> std::io::Result<()> {
        while let Some(r) = self.pending.pop_front() {
            self.write(r)?;
        }
        self.writer.finish()?;
        self.file.commit()
    }
}

/// The captures of a run: one per captured link and cell, indexed by link and by cell.
pub struct Captures {
    links: Vec<Option<Capture>>,
    cells: Vec<Option<Capture>>,
    node_names: Vec<String>,
    /// The real payloads of an emulation's packets.
    payloads: Option<Arc<Mutex<PayloadStore>>>,
}

/// `datagram` (zero payload, as encoded from `packet`) with its real payload, if known.
fn fill_payload(payloads: Option<&Arc<Mutex<PayloadStore>>>, packet: &Packet, datagram: &mut [u8]) {
    if let Some(store) = payloads {
        let mut bytes = Vec::new();
        store
            .lock()
            .expect("payload store")
            .for_capture(packet, &mut bytes);
        if !bytes.is_empty() {
            crate::packet::wire::write_payload(datagram, 0, &bytes);
        }
    }
}

impl Captures {
    /// Opens `<out_dir>/<name>.pcapng` for every named link or cell; unknown names are an
    /// error.
    pub fn open(world: &World, names: &[String], out_dir: &Path) -> Result<Self, SimError> {
        let mut links: Vec<Option<Capture>> = world.links.iter().map(|_| None).collect();
        let mut cells: Vec<Option<Capture>> = world.cells.iter().map(|_| None).collect();
        let node_names: Vec<String> = world.nodes.iter().map(|n| n.name.clone()).collect();
        for name in names {
            let (slot, interface) =
                if let Some(i) = world.links.iter().position(|l| &l.name == name) {
                    let l = &world.links[i];
                    let ends = [l.dirs[1].to, l.dirs[0].to].map(|n| node_names[n.index()].as_str());
                    let description = format!(
                        "point-to-point link {name} ({} <-> {}): IPv4 datagrams, both directions",
                        ends[0], ends[1]
                    );
                    (&mut links[i], (description, LINKTYPE_RAW))
                } else if let Some(i) = world.cells.iter().position(|c| &c.name == name) {
                    let stations: Vec<String> = world.cells[i]
                        .stations
                        .iter()
                        .map(|s| {
                            let mac = mac_address(s.node.0).map(|b| format!("{b:02x}")).join(":");
                            format!("{} = {mac}", node_names[s.node.index()])
                        })
                        .collect();
                    let description = format!(
                        "wireless cell {name}: every 802.11 frame on the medium; stations {}",
                        stations.join(", ")
                    );
                    (&mut cells[i], (description, LINKTYPE_IEEE802_11_RADIOTAP))
                } else {
                    let known: Vec<&str> = world
                        .links
                        .iter()
                        .map(|l| l.name.as_str())
                        .chain(world.cells.iter().map(|c| c.name.as_str()))
                        .collect();
                    return Err(SimError::Option(format!(
                        "--pcap {name}: no link of that name; links are: {}",
                        known.join(", ")
                    )));
                };
            std::fs::create_dir_all(out_dir)?;
            let interface = Interface {
                name: name.clone(),
                description: interface.0,
                link_type: interface.1,
            };
            let path = out_dir.join(format!("{name}.pcapng"));
            *slot = Some(Capture::new(PcapWriter::create(&path, interface)?));
        }
        Ok(Captures {
            links,
            cells,
            node_names,
            payloads: None,
        })
    }

    /// Writes datagrams with the real payloads `payloads` holds.
    pub fn with_payloads(mut self, payloads: Arc<Mutex<PayloadStore>>) -> Self {
        self.payloads = Some(payloads);
        self
    }

    /// A frame starts on link `link` in direction `dir`.
    pub fn link_started(
        &mut self,
        link: LinkId,
        dir: Direction,
        now: SimTime,
        packet: &Packet,
    ) -> std::io::Result<()> {
        let Some(Some(cap)) = self.links.get_mut(link.index()) else {
            return Ok(());
        };
        let mut frame = cap.writer.shifts().datagram(packet)?;
        fill_payload(self.payloads.as_ref(), packet, &mut frame);
        let id = cap.push(Pending {
            time: now,
            frame,
            comment: None,
            radiotap: false,
            fate: Fate::Unknown,
        });
        cap.on_wire[dir.index()] = Some(id);
        Ok(())
    }

    /// The frame on link `link` in direction `dir` (towards `to`) ended; `lost` if the
    /// error model dropped it.
    pub fn link_finished(
        &mut self,
        link: LinkId,
        dir: Direction,
        from: NodeId,
        to: NodeId,
        lost: bool,
    ) -> std::io::Result<()> {
        let Some(Some(cap)) = self.links.get_mut(link.index()) else {
            return Ok(());
        };
        let Some(id) = cap.on_wire[dir.index()].take() else {
            return Ok(());
        };
        let fate = if lost {
            let name = |n: NodeId| self.node_names[n.index()].as_str();
            Fate::Lost(format!("on the air ({} -> {})", name(from), name(to)))
        } else {
            Fate::Delivered
        };
        cap.settle(id, fate)
    }

    /// A frame starts on the medium of cell `cell` as transmission `tx`; `heard` is false
    /// when no station is in range to receive it.
    pub fn cell_started(
        &mut self,
        cell: usize,
        tx: TxId,
        now: SimTime,
        frame: &MacFrame<LinkFrame>,
        heard: bool,
    ) -> std::io::Result<()> {
        let Some(Some(cap)) = self.cells.get_mut(cell) else {
            return Ok(());
        };
        let (bytes, comment) = encode_cell_frame(cap, frame, self.payloads.as_ref())?;
        let id = cap.push(Pending {
            time: now,
            frame: bytes,
            comment,
            radiotap: true,
            fate: Fate::Unknown,
        });
        if heard {
            cap.on_air.push((tx, id));
            Ok(())
        } else {
            cap.settle(id, Fate::Lost("heard by no station".into()))
        }
    }

    /// Transmission `tx` ended at its addressee `receiver` with `outcome`.
    pub fn cell_received(
        &mut self,
        cell: usize,
        tx: TxId,
        receiver: NodeId,
        outcome: &RxOutcome,
    ) -> std::io::Result<()> {
        let Some(Some(cap)) = self.cells.get_mut(cell) else {
            return Ok(());
        };
        let Some(i) = cap.on_air.iter().position(|(t, _)| *t == tx) else {
            return Ok(());
        };
        let (_, id) = cap.on_air.swap_remove(i);
        let at = &self.node_names[receiver.index()];
        let fate = match outcome {
            RxOutcome::Intact => Fate::Delivered,
            RxOutcome::Collided => Fate::Lost(format!("at {at}: collision")),
            RxOutcome::Errored => Fate::Lost(format!("at {at}: channel errors")),
            RxOutcome::Missed => Fate::Lost(format!("at {at}: it was transmitting")),
        };
        cap.settle(id, fate)
    }

    /// Every station in range has finished receiving `tx`: if its addressee was not among
    /// them, it never got the frame.
    pub fn cell_done(&mut self, cell: usize, tx: TxId) -> std::io::Result<()> {
        let Some(Some(cap)) = self.cells.get_mut(cell) else {
            return Ok(());
        };
        match cap.on_air.iter().position(|(t, _)| *t == tx) {
            Some(i) => {
                let (_, id) = cap.on_air.swap_remove(i);
                cap.settle(id, Fate::Lost("out of its addressee's range".into()))
            }
            None => Ok(()),
        }
    }

    pub fn finish(self) -> std::io::Result<()> {
        for c in self.links.into_iter().chain(self.cells).flatten() {
            c.finish()?;
        }
        Ok(())
    }
}

/// The radiotap + 802.11 bytes of a cell's frame, and the comment on its link-layer fields.
fn encode_cell_frame(
    cap: &mut Capture,
    frame: &MacFrame<LinkFrame>,
    payloads: Option<&Arc<Mutex<PayloadStore>>>,
) -> std::io::Result<(Vec<u8>, Option<String>)> {
    let (body, comment): (Option<(u16, Vec<u8>)>, Option<String>) = match &frame.payload {
        None => (None, None),
        Some(link_frame) => {
            let (carried, comment, control) = link_frame.describe();
            match (carried, control) {
                (Some(p), _) => {
                    let mut datagram = cap.writer.shifts().datagram(p)?;
                    fill_payload(payloads, p, &mut datagram);
                    (Some((ETHERTYPE_IPV4, datagram)), comment)
                }
                (None, Some(fields)) => (Some((ETHERTYPE_LOCAL_EXPERIMENTAL, fields)), comment),
                (None, None) => (None, comment),
            }
        }
    };
    let kind = match frame.kind {
        FrameKind::Data => Dot11Kind::Data,
        FrameKind::Rts => Dot11Kind::Rts,
        FrameKind::Cts => Dot11Kind::Cts,
        FrameKind::Ack => Dot11Kind::Ack,
    };
    let dot11 = Dot11Frame {
        kind,
        ra: mac_address(frame.ra.0),
        ta: mac_address(frame.ta.0),
        bssid: [0x02, 0, 0, 0, 0xff, 0xff],
        duration_us: frame.duration.as_nanos() / 1_000,
        seq: frame.seq,
        retry: frame.retry,
        body: body.as_ref().map(|(e, b)| (*e, b.as_slice())),
    };
    Ok((encode_radiotap_frame(&dot11, true), comment))
}
