//! Opt-in pcap capture: every frame of the named links, both directions, at the start of
//! its transmission (as tcpdump on the sending interface sees it), one file per link.

use std::path::Path;

use crate::engine::SimTime;
use crate::ids::LinkId;
use crate::metrics::pcap::PcapWriter;
use crate::packet::Packet;

use super::world::World;
use super::SimError;

/// Writers for the captured links, indexed by link.
pub struct Captures {
    writers: Vec<Option<PcapWriter>>,
}

impl Captures {
    /// Opens `<out_dir>/<link>.pcap` for every named link; unknown names are an error.
    pub fn open(world: &World, names: &[String], out_dir: &Path) -> Result<Self, SimError> {
        let mut writers: Vec<Option<PcapWriter>> = world.links.iter().map(|_| None).collect();
        for name in names {
            let index = world
                .links
                .iter()
                .position(|l| &l.name == name)
                .ok_or_else(|| {
                    let known: Vec<&str> = world.links.iter().map(|l| l.name.as_str()).collect();
                    SimError::Invalid(format!(
                        "--pcap {name}: no link of that name; links are: {}",
                        known.join(", ")
                    ))
                })?;
            std::fs::create_dir_all(out_dir)?;
            writers[index] = Some(PcapWriter::create(&out_dir.join(format!("{name}.pcap")))?);
        }
        Ok(Captures { writers })
    }

    pub fn write(&mut self, link: LinkId, now: SimTime, packet: &Packet) -> std::io::Result<()> {
        match self.writers.get_mut(link.index()) {
            Some(Some(w)) => w.write(now, packet),
            _ => Ok(()),
        }
    }

    pub fn finish(self) -> std::io::Result<()> {
        for w in self.writers.into_iter().flatten() {
            w.finish()?;
        }
        Ok(())
    }
}
