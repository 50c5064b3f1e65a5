//! Opt-in pcap capture: every frame of the named links, both directions, at the start of
//! its transmission (as tcpdump on the sending interface sees it), one file per link. A
//! wireless cell is captured the same way, by its name (e.g. "wireless" in the chain): the
//! IP datagrams its frames carry, LACK-piggybacked ACKs included; MAC and link-layer control
//! frames (RTS, CTS, MAC ACKs, bare LACKs) carry no IP datagram and are not written.

use std::path::Path;

use crate::engine::SimTime;
use crate::ids::LinkId;
use crate::metrics::pcap::PcapWriter;
use crate::packet::Packet;

use super::world::World;
use super::SimError;

/// Writers for the captured links and cells, indexed by link and by cell.
pub struct Captures {
    writers: Vec<Option<PcapWriter>>,
    cell_writers: Vec<Option<PcapWriter>>,
}

impl Captures {
    /// Opens `<out_dir>/<link>.pcap` for every named link; unknown names are an error.
    pub fn open(world: &World, names: &[String], out_dir: &Path) -> Result<Self, SimError> {
        let mut writers: Vec<Option<PcapWriter>> = world.links.iter().map(|_| None).collect();
        let mut cell_writers: Vec<Option<PcapWriter>> = world.cells.iter().map(|_| None).collect();
        for name in names {
            let slot = if let Some(i) = world.links.iter().position(|l| &l.name == name) {
                &mut writers[i]
            } else if let Some(i) = world.cells.iter().position(|c| &c.name == name) {
                &mut cell_writers[i]
            } else {
                let known: Vec<&str> = world
                    .links
                    .iter()
                    .map(|l| l.name.as_str())
                    .chain(world.cells.iter().map(|c| c.name.as_str()))
                    .collect();
                return Err(SimError::Invalid(format!(
                    "--pcap {name}: no link of that name; links are: {}",
                    known.join(", ")
                )));
            };
            std::fs::create_dir_all(out_dir)?;
            *slot = Some(PcapWriter::create(&out_dir.join(format!("{name}.pcap")))?);
        }
        Ok(Captures {
            writers,
            cell_writers,
        })
    }

    pub fn write(&mut self, link: LinkId, now: SimTime, packet: &Packet) -> std::io::Result<()> {
        match self.writers.get_mut(link.index()) {
            Some(Some(w)) => w.write(now, packet),
            _ => Ok(()),
        }
    }

    pub fn write_cell(
        &mut self,
        cell: usize,
        now: SimTime,
        packet: &Packet,
    ) -> std::io::Result<()> {
        match self.cell_writers.get_mut(cell) {
            Some(Some(w)) => w.write(now, packet),
            _ => Ok(()),
        }
    }

    pub fn finish(self) -> std::io::Result<()> {
        for w in self.writers.into_iter().chain(self.cell_writers).flatten() {
            w.finish()?;
        }
        Ok(())
    }
}
