//! `lastmile._core`: the private native module behind the `lastmile` Python package.
//!
//! Thin by design (pydantic-core style): each function converts its arguments, calls one
//! entry point of `lastmile-core`, and converts the result back. Scenarios cross the
//! boundary as JSON text, run summaries as JSON text, and traces as little-endian column
//! buffers that Python wraps as Arrow arrays without touching individual rows.
//!
//! Errors: a `lastmile_core::scenario::ScenarioError` becomes `ScenarioError` (a
//! `ValueError`) carrying `file`, `path`, `value`, `expected`, `hint` and `message`; a
//! `SimError` becomes `SimulationError` (a `RuntimeError`) with a `kind`. Every call into
//! the core runs under `catch_unwind`, so a Rust panic surfaces as
//! `SimulationError("internal error: ...")` instead of aborting the interpreter. `run`
//! releases the GIL while the simulation runs.
//!
//! The typed signatures live in `python/lastmile/_core.pyi`, checked by `mypy.stubtest`.

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

use lastmile_core::metrics::TraceTable;
use lastmile_core::scenario::{self, Format, Scenario};
use lastmile_core::sim::{self, RunOptions, SimError};
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

create_exception!(
    lastmile,
    ScenarioError,
    PyValueError,
    "A scenario file or override is wrong: `file`, field `path`, bad `value`, what was \
     `expected`, an optional `hint`; `message` is the whole one-line explanation."
);
create_exception!(
    lastmile,
    SimulationError,
    PyRuntimeError,
    "A run could not be carried out or broke an invariant; `kind` is one of \"invalid\", \
     \"invariant\", \"past_event\", \"io\" or \"internal\"."
);

/// One trace column as it crosses into Python: (name, dtype, little-endian bytes, Arrow
/// validity bitmap or None when the column has no nulls).
type PyColumn = (String, &'static str, Py<PyBytes>, Option<Py<PyBytes>>);
/// One trace: (name, columns).
type PyTrace = (String, Vec<PyColumn>);
/// A loaded scenario: (normalised JSON, node names, link names).
type Loaded = (String, Vec<String>, Vec<String>);

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
    let err = SimulationError::new_err(message);
    // Setting an attribute on a fresh exception instance cannot fail in practice; if it
    // did, the error itself is still the right one to raise.
    let _ = err.value_bound(py).setattr("kind", kind);
    err
}

fn internal(py: Python<'_>, what: &str) -> PyErr {
    simulation_error(py, "internal", format!("internal error: {what}"))
}

fn internal_error(py: Python<'_>, payload: &(dyn Any + Send)) -> PyErr {
    internal(py, &panic_message(payload))
}

fn scenario_error(py: Python<'_>, e: &scenario::ScenarioError) -> PyErr {
    let message = e.to_string();
    let err = ScenarioError::new_err(message.clone());
    let value = err.value_bound(py);
    let attrs: [(&str, PyObject); 6] = [
        ("file", e.file.to_object(py)),
        ("path", e.path.to_object(py)),
        ("value", e.value.to_object(py)),
        ("expected", e.expected.to_object(py)),
        ("hint", e.hint.to_object(py)),
        ("message", message.to_object(py)),
    ];
    for (name, v) in attrs {
        let _ = value.setattr(name, v);
    }
    err
}

fn sim_error(py: Python<'_>, e: &SimError) -> PyErr {
    let kind = match e {
        SimError::Invalid(_) => "invalid",
        SimError::Invariant(_) => "invariant",
        SimError::PastEvent(_) => "past_event",
        SimError::Io(_) => "io",
    };
    simulation_error(py, kind, e.to_string())
}

fn parse_format(format: &str) -> PyResult<Format> {
    match format.to_ascii_lowercase().as_str() {
        "toml" => Ok(Format::Toml),
        "yaml" | "yml" => Ok(Format::Yaml),
        "json" => Ok(Format::Json),
        other => Err(PyValueError::new_err(format!(
            "unknown scenario format {other:?}: expected \"toml\", \"yaml\" or \"json\""
        ))),
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
        let json = serde_json::to_string(&s).map_err(|e| e.to_string())?;
        let topo = scenario::resolve_topology(&s).map_err(|e| e.to_string())?;
        let links = topo.links.into_iter().map(|l| l.name).collect();
        Ok::<Loaded, String>((json, topo.nodes, links))
    }));
    match outcome {
        Ok(Ok(l)) => Ok(l),
        Ok(Err(msg)) => Err(internal(py, &msg)),
        Err(payload) => Err(internal_error(py, payload.as_ref())),
    }
}

/// Reads and checks the scenario file at `path` (format from its extension) with
/// `overrides` ("key.path=value") applied; returns (JSON, node names, link names).
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
        format: parse_format(format)?,
        origin,
    };
    loaded(py, &source, &overrides)
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
/// (column name, dtype, little-endian bytes, validity bitmap or None).
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
) -> PyResult<(String, Vec<PyTrace>)> {
    let source = match (path, text) {
        (Some(p), None) => Source::Path(p),
        (None, Some(text)) => Source::Text {
            text,
            format: parse_format(format.unwrap_or("json"))?,
            origin: origin.unwrap_or_else(|| "<string>".to_string()),
        },
        _ => {
            return Err(PyValueError::new_err(
                "give exactly one of `path` and `text`",
            ))
        }
    };
    let scenario = load_source(py, &source, &overrides)?;
    let options = RunOptions {
        seed,
        traces,
        pcap,
        out_dir,
    };
    let outcome = py.allow_threads(|| {
        catch_unwind(AssertUnwindSafe(|| {
            let out = sim::run(&scenario, &options)?;
            let summary = serde_json::to_string(&out.summary)
                .map_err(|e| SimError::Invariant(format!("summary not serialisable: {e}")))?;
            Ok::<_, SimError>((summary, out.traces))
        }))
    });
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

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("ScenarioError", py.get_type_bound::<ScenarioError>())?;
    m.add("SimulationError", py.get_type_bound::<SimulationError>())?;
    m.add("__version__", version())?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(load_text, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(schema, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(trace_names, m)?)?;
    Ok(())
}
