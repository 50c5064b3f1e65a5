//! `lastmile-emu`: real hosts' packets through a simulated path, in real time (`lastmile
//! emulate`). The simulator core stays free of I/O (`lastmile_core::sim::Emulation`: ports
//! at the flows' endpoints, one event at a time); this crate adds the wall clock and the
//! TUN devices:
//!
//! - [`driver`]: the real-time loop, generic over a `Clock` and `Ports` (tested with a
//!   fake clock), measuring each event's lateness ([`lag`]);
//! - [`tun`] (Linux): the ports as TUN devices, waited on with `ppoll`;
//! - [`run`]: one emulation from start to summary, with the CPU time the loop used.
//!
//! Network namespaces, addresses, routes and the programs run in them are the caller's
//! (the Python package's `lastmile.emulate`).

pub mod driver;
pub mod lag;
#[cfg(target_os = "linux")]
pub mod tun;

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use lastmile_core::engine::{SimDuration, SimTime};
use lastmile_core::metrics::RunSummary;
use lastmile_core::sim::{Emulation, ExternalReport, StopReason};
use serde::Serialize;

pub use driver::{Clock, Driver, DriverError, DriverReport, Ended, MonotonicClock, Ports};

/// What one emulation measured: the simulation's summary (links, wireless hop, agent), the
/// ports' counts and the loop's timing.
#[derive(Clone, Debug, Serialize)]
pub struct Outcome {
    pub summary: RunSummary,
    pub ports: ExternalReport,
    pub timing: Timing,
}

/// The loop's timing and cost.
#[derive(Clone, Debug, Serialize)]
pub struct Timing {
    #[serde(flatten)]
    pub driver: DriverReport,
    /// CPU time (user + system) of the thread that ran the loop: the simulation, the TUN
    /// reads and writes, and the kernel's receive processing of the datagrams written.
    pub cpu_s: f64,
    /// Its user part (the simulation and the loop) and system part (the TUN reads and
    /// writes, and the receiving namespace's IP and TCP processing of each datagram
    /// written, which the kernel does in the writing thread).
    pub cpu_user_s: f64,
    pub cpu_system_s: f64,
    /// `cpu_s` per datagram read or written.
    pub cpu_per_datagram_s: f64,
    /// The loop ran at real-time priority (`tun::realtime_thread`).
    pub realtime: bool,
    /// The CPU the loop's thread was bound to (`tun::pin_thread`), if any.
    pub cpu: Option<usize>,
}

/// User and system CPU time of the calling thread (`getrusage(RUSAGE_THREAD)`), or zero
/// if unknown.
pub fn thread_cpu() -> (Duration, Duration) {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: getrusage fills the struct it is given.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        if unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut usage) } == 0 {
            let tv = |t: libc::timeval| {
                Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
            };
            return (tv(usage.ru_utime), tv(usage.ru_stime));
        }
    }
    (Duration::ZERO, Duration::ZERO)
}

/// How `run` runs.
#[derive(Clone, Copy, Debug)]
pub struct RunSettings {
    /// Wall time after which the run ends ("stop_time").
    pub limit: Duration,
    /// Ask for real-time priority for the loop's thread.
    pub realtime: bool,
    /// Bind the loop's thread to this CPU.
    pub cpu: Option<usize>,
}

/// Runs `emulation` through `ports` until `stop` is set ("completed": the caller's
/// traffic ended, or "interrupted" if `interrupted` is set too) or the limit passes
/// ("stop_time"), then finishes it.
pub fn run<P: Ports>(
    emulation: Emulation,
    ports: P,
    settings: RunSettings,
    stop: &AtomicBool,
    interrupted: &AtomicBool,
) -> Result<(Outcome, P), DriverError> {
    let limit = settings.limit;
    #[cfg(target_os = "linux")]
    tun::precise_timers();
    #[cfg(target_os = "linux")]
    let realtime = settings.realtime && tun::realtime_thread();
    #[cfg(target_os = "linux")]
    let cpu = settings.cpu.filter(|&c| tun::pin_thread(c));
    #[cfg(not(target_os = "linux"))]
    let (realtime, cpu) = (false, None);
    let cpu_start = thread_cpu();
    let mut driver = Driver::new(emulation, MonotonicClock::new(), ports);
    let report = driver.run(stop, limit)?;
    let cpu_end = thread_cpu();
    let user = cpu_end.0.saturating_sub(cpu_start.0);
    let system = cpu_end.1.saturating_sub(cpu_start.1);
    let cpu_time = user + system;
    let (emulation, ports) = driver.into_parts();
    let reason = match report.ended {
        Ended::TimeLimit => StopReason::StopTime,
        Ended::Stopped if interrupted.load(std::sync::atomic::Ordering::Relaxed) => {
            StopReason::Interrupted
        }
        Ended::Stopped => StopReason::Completed,
    };
    let end = SimTime::ZERO + SimDuration::from_secs_f64(report.wall_s);
    let (summary, port_report) = emulation.finish(end, reason, report.wall_s)?;
    let datagrams = report.datagrams_in + report.datagrams_out;
    let timing = Timing {
        cpu_s: cpu_time.as_secs_f64(),
        cpu_user_s: user.as_secs_f64(),
        cpu_system_s: system.as_secs_f64(),
        cpu_per_datagram_s: if datagrams == 0 {
            0.0
        } else {
            cpu_time.as_secs_f64() / datagrams as f64
        },
        realtime,
        cpu,
        driver: report,
    };
    Ok((
        Outcome {
            summary,
            ports: port_report,
            timing,
        },
        ports,
    ))
}
