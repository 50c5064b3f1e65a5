//! The real-time loop: the simulated clock follows the wall clock.
//!
//! Each turn: (1) every event due by the wall clock's reading is processed, each one's
//! lateness (wall time at processing minus its due time) recorded; (2) the datagrams that
//! left the simulation are written to their ports; (3) the datagrams waiting at the ports
//! are read and injected, stamped with the wall time they were read; (4) if none was
//! read, the loop waits on the ports until the next event is due (at most `MAX_WAIT`, so
//! that a stop request is seen). Time zero of the simulation is the moment `run` starts.
//!
//! The clock and the ports are traits, so that a test drives the loop with a fake clock
//! and scripted packets (`tests`); `tun::TunPorts` and `MonotonicClock` are the real ones.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use lastmile_core::engine::{SimDuration, SimTime};
use lastmile_core::sim::{Departure, Emulation, SimError};
use serde::Serialize;

use crate::lag::{LagStats, LagSummary};

/// The longest wait between looks at the stop flag.
pub const MAX_WAIT: Duration = Duration::from_millis(20);
/// Waits shorter than this are not worth a system call: the loop turns again at once.
pub const MIN_WAIT: Duration = Duration::from_micros(20);
/// Datagrams read from one port per turn at most, so that events stay on time under a
/// flood.
pub const READ_BATCH: usize = 64;

/// A monotonic clock, read as the time since an origin.
pub trait Clock {
    fn now(&self) -> Duration;
}

/// The system's monotonic clock (`CLOCK_MONOTONIC` through `Instant`).
pub struct MonotonicClock {
    origin: Instant,
}

impl MonotonicClock {
    pub fn new() -> Self {
        MonotonicClock {
            origin: Instant::now(),
        }
    }
}

impl Default for MonotonicClock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clock for MonotonicClock {
    fn now(&self) -> Duration {
        self.origin.elapsed()
    }
}

/// Where real datagrams come from and go to: one queue each way per port.
pub trait Ports {
    /// Waits until a port has a datagram to read or `timeout` has passed.
    fn wait(&mut self, timeout: Duration) -> std::io::Result<()>;
    /// Reads a datagram waiting at `port` into `buf`; `None` if none is waiting.
    fn recv(&mut self, port: usize, buf: &mut [u8]) -> std::io::Result<Option<usize>>;
    /// Writes `datagram` to `port`'s host.
    fn send(&mut self, port: usize, datagram: &[u8]) -> std::io::Result<()>;
    fn count(&self) -> usize;
}

/// Why the loop returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Ended {
    /// The stop flag was set.
    Stopped,
    /// The duration limit passed.
    TimeLimit,
}

/// A failure of the loop: the simulation's, or the ports'.
#[derive(Debug, thiserror::Error)]
pub enum DriverError {
    #[error(transparent)]
    Sim(#[from] SimError),
    #[error("port i/o: {0}")]
    Io(#[from] std::io::Error),
}

/// What the loop measured.
#[derive(Clone, Debug, Serialize)]
pub struct DriverReport {
    pub ended: Ended,
    /// Wall time the loop ran.
    pub wall_s: f64,
    /// Datagrams read from the ports and written to them.
    pub datagrams_in: u64,
    pub datagrams_out: u64,
    /// Writes the kernel refused (the datagram is lost, as on a full interface queue).
    pub write_errors: u64,
    /// The events' lateness behind the wall clock.
    pub lag: LagSummary,
}

fn sim_time(d: Duration) -> SimTime {
    SimTime::ZERO + SimDuration::from_nanos(u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

fn wall(t: SimTime) -> Duration {
    Duration::from_nanos(t.as_nanos())
}

/// The loop's state: the emulation, the clock, the ports and what it measured.
pub struct Driver<C: Clock, P: Ports> {
    pub emulation: Emulation,
    clock: C,
    ports: P,
    lag: LagStats,
    departures: Vec<Departure>,
    buf: Vec<u8>,
    datagrams_in: u64,
    datagrams_out: u64,
    write_errors: u64,
}

impl<C: Clock, P: Ports> Driver<C, P> {
    pub fn new(emulation: Emulation, clock: C, ports: P) -> Self {
        Driver {
            emulation,
            clock,
            ports,
            lag: LagStats::default(),
            departures: Vec::new(),
            buf: vec![0; 65_536],
            datagrams_in: 0,
            datagrams_out: 0,
            write_errors: 0,
        }
    }

    /// Runs until `stop` is set or `limit` (wall time from the start) has passed.
    pub fn run(&mut self, stop: &AtomicBool, limit: Duration) -> Result<DriverReport, DriverError> {
        let start = self.clock.now();
        let ended = loop {
            if stop.load(Ordering::Relaxed) {
                break Ended::Stopped;
            }
            let now = self.clock.now() - start;
            if now >= limit {
                break Ended::TimeLimit;
            }
            self.process_due(start, now)?;
            self.flush()?;
            if self.read_all(start)? {
                continue;
            }
            let next = self.emulation.next_event_time().map(wall);
            let now = self.clock.now() - start;
            let until_next = next.map_or(MAX_WAIT, |t| t.saturating_sub(now));
            let timeout = until_next.min(MAX_WAIT).min(limit.saturating_sub(now));
            if timeout >= MIN_WAIT {
                self.ports.wait(timeout)?;
            }
        };
        Ok(self.report(ended, self.clock.now() - start))
    }

    /// Processes every event due by `now`, recording each one's lateness.
    fn process_due(&mut self, start: Duration, now: Duration) -> Result<(), DriverError> {
        let until = sim_time(now);
        while let Some(due) = self.emulation.step(until)? {
            let processed = self.clock.now() - start;
            self.lag
                .record(wall(due), processed.saturating_sub(wall(due)));
        }
        Ok(())
    }

    /// Writes the datagrams that left the simulation.
    fn flush(&mut self) -> Result<(), DriverError> {
        self.emulation.take_departures(&mut self.departures);
        for d in self.departures.drain(..) {
            match self.ports.send(d.port, &d.datagram) {
                Ok(()) => self.datagrams_out += 1,
                Err(e) if is_transient(&e) => self.write_errors += 1,
                Err(e) => return Err(e.into()),
            }
        }
        Ok(())
    }

    /// Reads and injects what waits at the ports; true if anything was read.
    fn read_all(&mut self, start: Duration) -> Result<bool, DriverError> {
        let mut any = false;
        for port in 0..self.ports.count() {
            for _ in 0..READ_BATCH {
                let Some(len) = self.ports.recv(port, &mut self.buf)? else {
                    break;
                };
                let at = sim_time(self.clock.now() - start);
                self.emulation.inject(at, port, &self.buf[..len])?;
                self.datagrams_in += 1;
                any = true;
            }
        }
        Ok(any)
    }

    fn report(&self, ended: Ended, wall_time: Duration) -> DriverReport {
        DriverReport {
            ended,
            wall_s: wall_time.as_secs_f64(),
            datagrams_in: self.datagrams_in,
            datagrams_out: self.datagrams_out,
            write_errors: self.write_errors,
            lag: self.lag.summary(),
        }
    }

    /// The emulation (to `finish` it) and the ports (to close them).
    pub fn into_parts(self) -> (Emulation, P) {
        (self.emulation, self.ports)
    }
}

/// A write refused for lack of room, or to a port with no device: the datagram is
/// dropped (as a full queue would drop it) and counted.
fn is_transient(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::WouldBlock
            | std::io::ErrorKind::OutOfMemory
            | std::io::ErrorKind::NotConnected
    ) || e.raw_os_error() == Some(libc::ENOBUFS)
}

#[cfg(test)]
mod tests;
