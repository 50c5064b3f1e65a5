//! Opt-in traces as column-oriented buffers. A trace is a table of equally long typed
//! columns, appended row by row in the hot path without allocation per row beyond the
//! columns' amortised growth, and handed to Python as Arrow-layout buffers (little-endian
//! primitive arrays) without per-row conversion.

use serde::Serialize;

/// One column of a trace.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Column {
    F64(Vec<f64>),
    U64(Vec<u64>),
    U32(Vec<u32>),
    /// Booleans as one byte each (0 or 1).
    Bool(Vec<u8>),
}

impl Column {
    pub fn len(&self) -> usize {
        match self {
            Column::F64(v) => v.len(),
            Column::U64(v) => v.len(),
            Column::U32(v) => v.len(),
            Column::Bool(v) => v.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The Arrow / numpy type name of the column: "float64", "uint64", "uint32", "bool".
    pub fn dtype(&self) -> &'static str {
        match self {
            Column::F64(_) => "float64",
            Column::U64(_) => "uint64",
            Column::U32(_) => "uint32",
            Column::Bool(_) => "bool",
        }
    }
    /// The values as little-endian bytes, the layout of an Arrow primitive array's data
    /// buffer (booleans one byte per value, as numpy's `bool_`).
    pub fn to_le_bytes(&self) -> Vec<u8> {
        fn flat<T: Copy, const N: usize>(v: &[T], f: impl Fn(T) -> [u8; N]) -> Vec<u8> {
            let mut out = Vec::with_capacity(v.len() * N);
            for x in v {
                out.extend_from_slice(&f(*x));
            }
            out
        }
        match self {
            Column::F64(v) => flat(v, f64::to_le_bytes),
            Column::U64(v) => flat(v, u64::to_le_bytes),
            Column::U32(v) => flat(v, u32::to_le_bytes),
            Column::Bool(v) => v.clone(),
        }
    }
}

/// A named table of columns.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TraceTable {
    pub name: String,
    pub columns: Vec<(String, Column)>,
}

impl TraceTable {
    pub fn new(name: &str, columns: &[(&str, Column)]) -> Self {
        TraceTable {
            name: name.to_string(),
            columns: columns
                .iter()
                .map(|(n, c)| (n.to_string(), c.clone()))
                .collect(),
        }
    }
    pub fn rows(&self) -> usize {
        self.columns.first().map(|(_, c)| c.len()).unwrap_or(0)
    }
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|(n, _)| n == name).map(|(_, c)| c)
    }
}
