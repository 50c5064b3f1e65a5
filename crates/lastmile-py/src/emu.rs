//! `lastmile._core.Emulator`: a scenario run in real time against real hosts
//! (`lastmile-emu`). The Python package (`lastmile.emulate`) makes the namespaces and runs
//! the programs; this class builds the emulation, opens its TUN devices and runs the loop
//! with the GIL released. `stop` may be called from any thread while `run` runs.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use lastmile_core::sim::{Emulation, RunOptions, SimError};
use pyo3::prelude::*;

use crate::{internal, internal_error, load_source, sim_error, simulation_error, source_of};

#[cfg(target_os = "linux")]
type EmuPorts = lastmile_emu::tun::TunPorts;

/// An emulation and its devices, until `run` takes them.
struct Ready {
    emulation: Emulation,
    #[cfg(target_os = "linux")]
    ports: EmuPorts,
}

/// A scenario with its flows' endpoints as ports to real hosts.
#[pyclass(frozen, module = "lastmile._core")]
pub struct Emulator {
    ready: Mutex<Option<Ready>>,
    port_names: Vec<(String, String)>,
    stop: Arc<AtomicBool>,
    interrupted: Arc<AtomicBool>,
}

fn io_error(py: Python<'_>, what: String) -> PyErr {
    simulation_error(py, "io", what)
}

#[pymethods]
impl Emulator {
    /// Loads a scenario (from `path`, or `text` in `format`) and builds its emulation:
    /// every flow endpoint a port. `pcap` names links to capture into `out_dir`.
    #[new]
    #[pyo3(signature = (
        *,
        path = None,
        text = None,
        format = None,
        origin = None,
        overrides = Vec::new(),
        seed = None,
        pcap = Vec::new(),
        out_dir = None,
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        path: Option<PathBuf>,
        text: Option<String>,
        format: Option<&str>,
        origin: Option<String>,
        overrides: Vec<String>,
        seed: Option<u64>,
        pcap: Vec<String>,
        out_dir: Option<PathBuf>,
    ) -> PyResult<Self> {
        let source = source_of(py, path, text, format, origin)?;
        let scenario = load_source(py, &source, &overrides)?;
        // No run budget: a real-time run ends when its real traffic does.
        let options = RunOptions {
            seed,
            pcap,
            out_dir,
            ..RunOptions::default()
        };
        let built = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            Emulation::new(&scenario, &options)
        }));
        let emulation = match built {
            Ok(Ok(e)) => e,
            Ok(Err(e)) => return Err(sim_error(py, &e)),
            Err(payload) => return Err(internal_error(py, payload.as_ref())),
        };
        let port_names = emulation
            .ports()
            .iter()
            .map(|p| (p.name.clone(), p.addr.to_string()))
            .collect::<Vec<_>>();
        Ok(Emulator {
            ready: Mutex::new(Some(Ready {
                #[cfg(target_os = "linux")]
                ports: EmuPorts::new(port_names.len()),
                emulation,
            })),
            port_names,
            stop: Arc::new(AtomicBool::new(false)),
            interrupted: Arc::new(AtomicBool::new(false)),
        })
    }

    /// The ports, in order: (node name, IPv4 address).
    fn ports(&self) -> Vec<(String, String)> {
        self.port_names.clone()
    }

    /// Creates port `port`'s TUN device `name` in this process's network namespace.
    fn open_tun(&self, py: Python<'_>, port: usize, name: &str) -> PyResult<()> {
        let mut ready = self.ready.lock().map_err(|_| internal(py, "poisoned"))?;
        let Some(_r) = ready.as_mut() else {
            return Err(io_error(py, "the emulation has run already".into()));
        };
        #[cfg(target_os = "linux")]
        {
            _r.ports
                .open(port, name)
                .map_err(|e| io_error(py, format!("TUN device {name} for port {port}: {e}")))
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = (port, name);
            Err(io_error(py, "TUN devices need Linux".into()))
        }
    }

    /// Runs the loop (GIL released) until `stop` or `limit_s` seconds, at real-time
    /// priority if `realtime` (and permitted), its thread bound to CPU `cpu` if given;
    /// returns the outcome as JSON (`summary`, `ports`, `timing`). The TUN devices close
    /// when it returns.
    #[pyo3(signature = (limit_s, realtime = true, cpu = None))]
    fn run(
        &self,
        py: Python<'_>,
        limit_s: f64,
        realtime: bool,
        cpu: Option<usize>,
    ) -> PyResult<String> {
        let ready = self
            .ready
            .lock()
            .map_err(|_| internal(py, "poisoned"))?
            .take()
            .ok_or_else(|| io_error(py, "the emulation has run already".into()))?;
        #[cfg(target_os = "linux")]
        {
            if let Some(i) = ready.ports.names().iter().position(Option::is_none) {
                return Err(io_error(
                    py,
                    format!("port {i} has no TUN device (open_tun)"),
                ));
            }
            let settings = lastmile_emu::RunSettings {
                limit: Duration::from_secs_f64(limit_s.clamp(0.0, 1e9)),
                realtime,
                cpu,
            };
            let (stop, interrupted) = (Arc::clone(&self.stop), Arc::clone(&self.interrupted));
            let outcome = py.allow_threads(move || {
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    let (outcome, mut ports) = lastmile_emu::run(
                        ready.emulation,
                        ready.ports,
                        settings,
                        &stop,
                        &interrupted,
                    )?;
                    ports.close();
                    serde_json::to_string(&outcome).map_err(|e| {
                        lastmile_emu::DriverError::Sim(SimError::Invariant(format!(
                            "outcome not serialisable: {e}"
                        )))
                    })
                }))
            });
            match outcome {
                Ok(Ok(json)) => Ok(json),
                Ok(Err(lastmile_emu::DriverError::Sim(e))) => Err(sim_error(py, &e)),
                Ok(Err(lastmile_emu::DriverError::Io(e))) => Err(io_error(py, e.to_string())),
                Err(payload) => Err(internal_error(py, payload.as_ref())),
            }
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = (ready, limit_s, realtime, cpu);
            Err(io_error(py, "emulation needs Linux".into()))
        }
    }

    /// Asks `run` to return (from any thread): "completed", or "interrupted" if
    /// `interrupted`.
    #[pyo3(signature = (interrupted = false))]
    fn stop(&self, interrupted: bool) {
        if interrupted {
            self.interrupted.store(true, Ordering::Relaxed);
        }
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Adds the class to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Emulator>()
}
