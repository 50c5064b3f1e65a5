//! `lastmile._core`: the private native module behind the `lastmile` Python package.
//!
//! Thin by design (pydantic-core style): each function converts its arguments, calls one
//! entry point of `lastmile-core`, and converts the result back. Scenarios cross the
//! boundary as JSON text, run summaries as JSON text, and traces as little-endian column
//! buffers that Python wraps as Arrow arrays without touching individual rows.
//!
//! Errors: the exception classes are the Python package's own (`lastmile._errors`, one
//! hierarchy under `lastmile.LastmileError`), looked up once and re-exported here. A
//! `lastmile_core::scenario::ScenarioError` becomes `ScenarioError` (a `ValueError`)
//! carrying `file`, `path`, `value`, `expected`, `hint` and `message`; a `SimError`
//! becomes `SimulationError` (a `RuntimeError`) with a `kind`; a bad argument
//! `ArgumentError`. Every call into the core runs under `catch_unwind`, so a Rust panic
//! surfaces as `SimulationError("internal error: ...", kind="internal")` instead of
//! aborting the interpreter, and a panic hook keeps the panic's own report off stderr (its
//! location goes into the message instead): a CLI error stays one line.
//!
//! `run` releases the GIL while the simulation runs and takes it back every
//! `PROGRESS_EVERY` events, to call the optional `progress` callable and to let Python's
//! signal handlers run: Ctrl-C stops the run cleanly, and the summary of the run so far
//! comes back with `stop_reason` "interrupted". `check` does everything `run` does before
//! the first event and returns the run's estimated size.
//!
//! The typed signatures live in `python/lastmile/_core.pyi`, checked by `mypy.stubtest`.

mod emu;

use std::any::Any;
use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

use lastmile_core::metrics::TraceTable;
use lastmile_core::scenario::{self, Format, Scenario};
use lastmile_core::sim::{self, Control, Estimate, Progress, RunObserver, RunOptions, SimError};
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyBytes, PyDict, PyType};

/// The package's exception classes, looked up once.
static ERRORS: GILOnceCell<Py<PyModule>> = GILOnceCell::new();

fn error_class<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyType>> {
    let module = ERRORS.get_or_try_init(py, || {
        Ok::<_, PyErr>(py.import_bound("lastmile._errors")?.unbind())
    })?;
    Ok(module.bind(py).getattr(name)?.downcast_into::<PyType>()?)
}

/// A new exception of the package's class `name`, with keyword attributes.
fn new_error(py: Python<'_>, name: &str, message: String, kwargs: &[(&str, PyObject)]) -> PyErr {
    let build = || -> PyResult<PyErr> {
        let class = error_class(py, name)?;
        let kw = PyDict::new_bound(py);
        for (k, v) in kwargs {
            kw.set_item(k, v)?;
        }
        let instance = class.call((message.clone(),), Some(&kw))?;
        Ok(PyErr::from_value_bound(instance))
    };
    // Only a broken install lacks `lastmile._errors`; that error is then the one to see.
    build().unwrap_or_else(|e| e)
}

thread_local! {
    /// Where the last panic on this thread happened, for the internal error's message.
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Keeps panics' own reports off stderr (they are caught and re-raised as
/// `SimulationError`, whose message then says where the panic was).
fn quiet_panics() {
    std::panic::set_hook(Box::new(|info| {
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        LAST_PANIC.with(|p| *p.borrow_mut() = Some(at));
    }));
}

/// One trace column as it crosses into Python: (name, dtype, little-endian bytes, Arrow
/// validity bitmap or None when the column has no nulls).
type PyColumn = (String, &'static str, Py<PyBytes>, Option<Py<PyBytes>>);
/// One trace: (name, columns).
type PyTrace = (String, Vec<PyColumn>);
/// A loaded scenario: (the resolved scenario as JSON, node names, link names, flow count).
type Loaded = (String, Vec<String>, Vec<String>, usize);

fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic with a non-string payload".to_string()
    }
}

fn simulation_error(py: Python<'_>, kind: &str, message: String) -> PyErr {
    new_error(
        py,
        "SimulationError",
        message,
        &[("kind", kind.to_object(py))],
    )
}

fn argument_error(py: Python<'_>, argument: &str, message: String) -> PyErr {
    new_error(
        py,
        "ArgumentError",
        message,
        &[("argument", argument.to_object(py))],
    )
}

fn internal(py: Python<'_>, what: &str) -> PyErr {
    simulation_error(py, "internal", format!("internal error: {what}"))
}

fn internal_error(py: Python<'_>, payload: &(dyn Any + Send)) -> PyErr {
    let at = LAST_PANIC
        .with(|p| p.borrow_mut().take())
        .unwrap_or_default();
    internal(
        py,
        &format!("{}{at} (please report this bug)", panic_message(payload)),
    )
}

fn scenario_error(py: Python<'_>, e: &scenario::ScenarioError) -> PyErr {
    new_error(
        py,
        "ScenarioError",
        e.to_string(),
        &[
            ("file", e.file.to_object(py)),
            ("path", e.path.to_object(py)),
            ("value", e.value.to_object(py)),
            ("expected", e.expected.to_object(py)),
            ("hint", e.hint.to_object(py)),
        ],
    )
}

fn sim_error(py: Python<'_>, e: &SimError) -> PyErr {
    let kind = match e {
        SimError::Scenario(e) => return scenario_error(py, e),
        SimError::Invalid(_) | SimError::Option(_) => "invalid",
        SimError::Invariant(_) => "invariant",
        SimError::PastEvent(_) => "past_event",
        SimError::Io(_) => "io",
    };
    simulation_error(py, kind, e.to_string())
}

fn parse_format(py: Python<'_>, format: &str) -> PyResult<Format> {
    match format.to_ascii_lowercase().as_str() {
        "toml" => Ok(Format::Toml),
        "yaml" | "yml" => Ok(Format::Yaml),
        "json" => Ok(Format::Json),
        _ => Err(argument_error(
            py,
            "format",
            format!(
                "unknown scenario format \"{}\": expected \"toml\", \"yaml\" or \"json\"",
                scenario::clip(format, scenario::QUOTE_MAX)
            ),
        )),
    }
}

/// Where a scenario comes from: a file, or text with its format and a name for messages.
enum Source {
    Path(PathBuf),
    Text {
        text: String,
        format: Format,
        origin: String,
    },
}

impl Source {
    fn load(&self, overrides: &[String]) -> Result<Scenario, scenario::ScenarioError> {
        match self {
            Source::Path(p) => scenario::load_path(p, overrides),
            Source::Text {
                text,
                format,
                origin,
            } => scenario::load_str(text, *format, origin, overrides),
        }
    }
}

/// Loads a scenario (panics caught, GIL held: loading is quick).
fn load_source(py: Python<'_>, source: &Source, overrides: &[String]) -> PyResult<Scenario> {
    match catch_unwind(AssertUnwindSafe(|| source.load(overrides))) {
        Ok(Ok(s)) => Ok(s),
        Ok(Err(e)) => Err(scenario_error(py, &e)),
        Err(payload) => Err(internal_error(py, payload.as_ref())),
    }
}

fn loaded(py: Python<'_>, source: &Source, overrides: &[String]) -> PyResult<Loaded> {
    let s = load_source(py, source, overrides)?;
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let json =
            serde_json::to_string(&scenario::resolved(&s, s.seed)).map_err(|e| e.to_string())?;
        let plan = scenario::plan(&s).map_err(|e| e.to_string())?;
        let flows = plan.flows.flows.len();
        let links = plan.topology.links.iter().map(|l| l.name.clone()).collect();
        Ok::<Loaded, String>((json, plan.topology.nodes.clone(), links, flows))
    }));
    match outcome {
        Ok(Ok(l)) => Ok(l),
        Ok(Err(msg)) => Err(internal(py, &msg)),
        Err(payload) => Err(internal_error(py, payload.as_ref())),
    }
}

/// Reads and checks the scenario file at `path` (format from its extension) with
/// `overrides` ("key.path=value") applied; returns (the resolved scenario as JSON, node
/// names, link names, the number of flows its `[[flow]]` entries expand to).
#[pyfunction]
#[pyo3(signature = (path, overrides = Vec::new()))]
fn load(py: Python<'_>, path: PathBuf, overrides: Vec<String>) -> PyResult<Loaded> {
    loaded(py, &Source::Path(path), &overrides)
}

/// Like `load`, for scenario text in `format` ("toml", "yaml" or "json"); `origin`
/// names the text in error messages.
#[pyfunction]
#[pyo3(signature = (text, format, origin = "<string>".to_string(), overrides = Vec::new()))]
fn load_text(
    py: Python<'_>,
    text: String,
    format: &str,
    origin: String,
    overrides: Vec<String>,
) -> PyResult<Loaded> {
    let source = Source::Text {
        text,
        format: parse_format(py, format)?,
        origin,
    };
    loaded(py, &source, &overrides)
}

/// `path` or `text` (in `format`, named `origin`) as a `Source`.
fn source_of(
    py: Python<'_>,
    path: Option<PathBuf>,
    text: Option<String>,
    format: Option<&str>,
    origin: Option<String>,
) -> PyResult<Source> {
    match (path, text) {
        (Some(p), None) => Ok(Source::Path(p)),
        (None, Some(text)) => Ok(Source::Text {
            text,
            format: parse_format(py, format.unwrap_or("json"))?,
            origin: origin.unwrap_or_else(|| "<string>".to_string()),
        }),
        _ => Err(argument_error(
            py,
            "path",
            "give exactly one of `path` and `text`".into(),
        )),
    }
}

/// Everything `run` does before the first event, without running: loads and checks the
/// scenario, checks the trace and capture names, builds the world. Returns a dict:
/// `name`, `nodes`, `links`, `flows` (counts) and the run's estimate, `events`,
/// `sim_time_s` and `wall_s` (at the nominal speed).
#[pyfunction]
#[pyo3(signature = (
    *,
    path = None,
    text = None,
    format = None,
    origin = None,
    overrides = Vec::new(),
    seed = None,
    traces = Vec::new(),
    pcap = Vec::new(),
    out_dir = None,
))]
#[allow(clippy::too_many_arguments)]
fn check<'py>(
    py: Python<'py>,
    path: Option<PathBuf>,
    text: Option<String>,
    format: Option<&str>,
    origin: Option<String>,
    overrides: Vec<String>,
    seed: Option<u64>,
    traces: Vec<String>,
    pcap: Vec<String>,
    out_dir: Option<PathBuf>,
) -> PyResult<Bound<'py, PyDict>> {
    let source = source_of(py, path, text, format, origin)?;
    let scenario = load_source(py, &source, &overrides)?;
    let options = RunOptions {
        seed,
        traces,
        pcap,
        out_dir,
        ..RunOptions::default()
    };
    let checked = catch_unwind(AssertUnwindSafe(|| {
        let plan = scenario::plan(&scenario)?;
        let estimate = sim::check_plan(&plan, &options)?;
        let topo = &plan.topology;
        let flows = plan.flows.flows.len();
        Ok::<_, SimError>((estimate, topo.nodes.len(), topo.links.len(), flows))
    }));
    let (e, nodes, links, flows) = match checked {
        Ok(Ok(c)) => c,
        Ok(Err(e)) => return Err(sim_error(py, &e)),
        Err(payload) => return Err(internal_error(py, payload.as_ref())),
    };
    let d = PyDict::new_bound(py);
    d.set_item("name", &scenario.name)?;
    d.set_item("nodes", nodes)?;
    d.set_item("links", links)?;
    d.set_item("flows", flows)?;
    d.set_item("events", e.events)?;
    d.set_item("sim_time_s", e.sim_time_s)?;
    d.set_item("wall_s", e.wall_s)?;
    Ok(d)
}

/// Calls Python while a run goes on (GIL taken back for the call): the `progress`
/// callable, then the signal handlers. A Ctrl-C or an exception from the callable stops
/// the run; the exception is kept to be raised once the run has returned.
struct PyObserver {
    progress: Option<PyObject>,
    error: Option<PyErr>,
}

impl PyObserver {
    fn call(&mut self, make: impl FnOnce(Python<'_>) -> PyResult<Bound<'_, PyDict>>) -> Control {
        Python::with_gil(|py| {
            let outcome = (|| {
                if let Some(f) = &self.progress {
                    f.call1(py, (make(py)?,))?;
                }
                py.check_signals()
            })();
            match outcome {
                Ok(()) => Control::Continue,
                Err(e) => {
                    self.error = Some(e);
                    Control::Stop
                }
            }
        })
    }
}

impl RunObserver for PyObserver {
    fn on_start(&mut self, e: &Estimate) {
        // A Ctrl-C (or an error) here stops the run at its first progress call.
        if self.progress.is_some() {
            let _ = self.call(|py| {
                let d = PyDict::new_bound(py);
                d.set_item("phase", "start")?;
                d.set_item("estimated_events", e.events)?;
                d.set_item("estimated_sim_time_s", e.sim_time_s)?;
                d.set_item("estimated_wall_s", e.wall_s)?;
                Ok(d)
            });
        }
    }

    fn on_progress(&mut self, p: &Progress) -> Control {
        if self.error.is_some() {
            return Control::Stop;
        }
        self.call(|py| {
            let d = PyDict::new_bound(py);
            d.set_item("phase", "running")?;
            d.set_item("events", p.events)?;
            d.set_item("sim_time_s", p.sim_time.as_secs_f64())?;
            d.set_item("stop_time_s", p.stop_time.as_secs_f64())?;
            Ok(d)
        })
    }
}

fn trace_to_py(py: Python<'_>, t: &TraceTable) -> PyTrace {
    let columns = t
        .columns
        .iter()
        .map(|(name, col)| {
            let bytes = PyBytes::new_bound(py, &col.to_le_bytes()).unbind();
            let validity = col
                .validity_bitmap()
                .map(|b| PyBytes::new_bound(py, &b).unbind());
            (name.clone(), col.dtype(), bytes, validity)
        })
        .collect();
    (t.name.clone(), columns)
}

/// Loads a scenario (from `path`, or from `text` in `format`) and runs it to the end with
/// the GIL released. Returns (summary JSON, traces), each trace a list of
/// (column name, dtype, little-endian bytes, validity bitmap or None). `progress`, if given,
/// is called with a dict:
/// once with the estimate (`phase` "start"), then every `PROGRESS_EVERY` events (`phase`
/// "running": `events`, `sim_time_s`, `stop_time_s`). Ctrl-C ends the run as
/// "interrupted" and returns its summary so far; an exception from `progress` stops the run
/// and is raised. `max_events` and `max_wall_s` are the run's budget: past either, it ends
/// as "budget" with its summary so far.
#[pyfunction]
#[pyo3(signature = (
    *,
    path = None,
    text = None,
    format = None,
    origin = None,
    overrides = Vec::new(),
    seed = None,
    traces = Vec::new(),
    pcap = Vec::new(),
    out_dir = None,
    progress = None,
    max_events = None,
    max_wall_s = None,
))]
#[allow(clippy::too_many_arguments)]
fn run(
    py: Python<'_>,
    path: Option<PathBuf>,
    text: Option<String>,
    format: Option<&str>,
    origin: Option<String>,
    overrides: Vec<String>,
    seed: Option<u64>,
    traces: Vec<String>,
    pcap: Vec<String>,
    out_dir: Option<PathBuf>,
    progress: Option<PyObject>,
    max_events: Option<u64>,
    max_wall_s: Option<f64>,
) -> PyResult<(String, Vec<PyTrace>)> {
    let source = source_of(py, path, text, format, origin)?;
    let scenario = load_source(py, &source, &overrides)?;
    let max_wall = match max_wall_s {
        None => None,
        Some(s) => Some(std::time::Duration::try_from_secs_f64(s).map_err(|_| {
            argument_error(
                py,
                "max_wall_s",
                format!("max_wall_s = {s}: expected a positive number of seconds"),
            )
        })?),
    };
    let options = RunOptions {
        seed,
        traces,
        pcap,
        out_dir,
        max_events,
        max_wall,
    };
    let mut observer = PyObserver {
        progress,
        error: None,
    };
    let outcome = py.allow_threads(|| {
        catch_unwind(AssertUnwindSafe(|| {
            let out = sim::run_observed(&scenario, &options, &mut observer)?;
            let summary = serde_json::to_string(&out.summary)
                .map_err(|e| SimError::Invariant(format!("summary not serialisable: {e}")))?;
            Ok::<_, SimError>((summary, out.traces))
        }))
    });
    // Ctrl-C is reported by the summary ("interrupted"); any other exception the
    // observer met is raised.
    if let Some(e) = observer.error.take() {
        if !e.is_instance_of::<pyo3::exceptions::PyKeyboardInterrupt>(py) {
            return Err(e);
        }
    }
    match outcome {
        Ok(Ok((summary, tables))) => {
            let traces = tables.iter().map(|t| trace_to_py(py, t)).collect();
            Ok((summary, traces))
        }
        Ok(Err(e)) => Err(sim_error(py, &e)),
        Err(payload) => Err(internal_error(py, payload.as_ref())),
    }
}

/// The JSON Schema of scenario files, as pretty-printed JSON text.
#[pyfunction]
fn schema(py: Python<'_>) -> PyResult<String> {
    match catch_unwind(|| serde_json::to_string_pretty(&scenario::json_schema())) {
        Ok(Ok(s)) => Ok(s),
        Ok(Err(e)) => Err(internal(py, &e.to_string())),
        Err(payload) => Err(internal_error(py, payload.as_ref())),
    }
}

/// The version of the native module (the workspace version).
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// The names of the traces a run can record.
#[pyfunction]
fn trace_names() -> Vec<&'static str> {
    sim::TRACE_NAMES.to_vec()
}

/// The warning for a stalled flow, from its summary's figures (`metrics::stall`: the one
/// wording of every front end).
#[pyfunction]
#[pyo3(signature = (*, name, longest_stall_s, stall_threshold_s, last_delivery_s, stall_cause, tcp_timeouts, tcp_persist_probes))]
#[allow(clippy::too_many_arguments)]
fn stall_warning(
    name: &str,
    longest_stall_s: f64,
    stall_threshold_s: f64,
    last_delivery_s: Option<f64>,
    stall_cause: Option<&str>,
    tcp_timeouts: u64,
    tcp_persist_probes: u64,
) -> String {
    lastmile_core::metrics::stall::stall_warning(&lastmile_core::metrics::stall::StallFacts {
        name,
        longest_stall_s,
        stall_threshold_s,
        last_delivery_s,
        stall_cause,
        tcp_timeouts,
        tcp_persist_probes,
    })
}

/// The progress line of a long run (`lastmile_core::sim::progress_line`).
#[pyfunction]
fn progress_line(sim_s: f64, stop_s: f64, events: u64, events_per_s: f64) -> String {
    lastmile_core::sim::progress_line::progress_line(sim_s, stop_s, events, events_per_s)
}

/// The event budget `LASTMILE_EVENT_BUDGET`'s value sets (`lastmile_core::sim::budget`);
/// `ValueError` with the message naming the variable for a bad one.
#[pyfunction]
#[pyo3(signature = (text))]
fn event_budget(text: Option<&str>) -> PyResult<f64> {
    lastmile_core::sim::budget::event_budget(text).map_err(pyo3::exceptions::PyValueError::new_err)
}

/// A run's estimate in words (`lastmile_core::sim::Estimate::describe`).
#[pyfunction]
fn describe_estimate(events: f64, sim_time_s: f64, wall_s: f64) -> String {
    Estimate {
        events,
        sim_time_s,
        wall_s,
    }
    .describe()
}

/// The warning for a run over the event budget, or None (`lastmile_core::sim::budget`).
#[pyfunction]
fn budget_warning(events: f64, sim_time_s: f64, wall_s: f64, budget: f64) -> Option<String> {
    let estimate = Estimate {
        events,
        sim_time_s,
        wall_s,
    };
    lastmile_core::sim::budget::budget_warning(&estimate, budget)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    quiet_panics();
    m.add("ScenarioError", error_class(py, "ScenarioError")?)?;
    m.add("SimulationError", error_class(py, "SimulationError")?)?;
    m.add("__version__", version())?;
    m.add("PROGRESS_EVERY", sim::PROGRESS_EVERY)?;
    m.add("DEFAULT_EVENT_BUDGET", sim::budget::DEFAULT_EVENT_BUDGET)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(stall_warning, m)?)?;
    m.add_function(wrap_pyfunction!(progress_line, m)?)?;
    m.add_function(wrap_pyfunction!(event_budget, m)?)?;
    m.add_function(wrap_pyfunction!(describe_estimate, m)?)?;
    m.add_function(wrap_pyfunction!(budget_warning, m)?)?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(load_text, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(schema, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(trace_names, m)?)?;
    emu::register(m)?;
    Ok(())
}
