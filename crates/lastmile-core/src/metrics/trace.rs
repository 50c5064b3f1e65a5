//! Opt-in traces as column-oriented buffers. A trace is a table of equally long typed
//! columns, appended row by row in the hot path without allocation per row beyond the
//! columns' amortised growth, and handed to Python as Arrow-layout buffers (little-endian
//! primitive arrays) without per-row conversion. A column that may hold no value in a row
//! (`OptU64`: an unlimited ssthresh, a frame carrying no stream data; `OptF64`: a
//! congestion control's estimate it does not keep) carries an Arrow validity bitmap beside
//! its values, so that a reader sees a null, never a sentinel.

use serde::Serialize;

/// One column of a trace.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Column {
    F64(Vec<f64>),
    U64(Vec<u64>),
    U32(Vec<u32>),
    /// Booleans as one byte each (0 or 1).
    Bool(Vec<u8>),
    /// Unsigned 64-bit values that may be absent: `values[i]` is meaningful only where
    /// `valid[i]` is 1 (and is 0 elsewhere).
    OptU64 {
        values: Vec<u64>,
        valid: Vec<u8>,
    },
    /// Floats that may be absent, likewise (0.0 where absent).
    OptF64 {
        values: Vec<f64>,
        valid: Vec<u8>,
    },
}

impl Column {
    pub fn len(&self) -> usize {
        match self {
            Column::F64(v) => v.len(),
            Column::U64(v) => v.len(),
            Column::U32(v) => v.len(),
            Column::Bool(v) => v.len(),
            Column::OptU64 { values, .. } => values.len(),
            Column::OptF64 { values, .. } => values.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The Arrow / numpy type name of the column: "float64", "uint64", "uint32", "bool".
    pub fn dtype(&self) -> &'static str {
        match self {
            Column::F64(_) | Column::OptF64 { .. } => "float64",
            Column::U64(_) | Column::OptU64 { .. } => "uint64",
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
            Column::OptU64 { values, .. } => flat(values, u64::to_le_bytes),
            Column::OptF64 { values, .. } => flat(values, f64::to_le_bytes),
        }
    }

    /// The Arrow validity bitmap (bit i of byte i/8 set where row i holds a value), for a
    /// column that can hold nulls; `None` for the others.
    pub fn validity_bitmap(&self) -> Option<Vec<u8>> {
        let (Column::OptU64 { valid, .. } | Column::OptF64 { valid, .. }) = self else {
            return None;
        };
        let mut bitmap = vec![0u8; valid.len().div_ceil(8)];
        for (i, _) in valid.iter().enumerate().filter(|(_, v)| **v != 0) {
            bitmap[i / 8] |= 1 << (i % 8);
        }
        Some(bitmap)
    }

    /// The number of rows holding no value.
    pub fn null_count(&self) -> usize {
        match self {
            Column::OptU64 { valid, .. } | Column::OptF64 { valid, .. } => {
                valid.iter().filter(|v| **v == 0).count()
            }
            _ => 0,
        }
    }
}

impl Column {
    /// An `OptU64` column from optional values.
    pub fn opt_u64(rows: impl IntoIterator<Item = Option<u64>>) -> Self {
        let (values, valid) = rows
            .into_iter()
            .map(|v| (v.unwrap_or(0), u8::from(v.is_some())))
            .unzip();
        Column::OptU64 { values, valid }
    }

    /// An `OptF64` column from optional values (0.0 where absent).
    pub fn opt_f64(rows: impl IntoIterator<Item = Option<f64>>) -> Self {
        let (values, valid) = rows
            .into_iter()
            .map(|v| (v.unwrap_or(0.0), u8::from(v.is_some())))
            .unzip();
        Column::OptF64 { values, valid }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn optional_column_exports_an_arrow_validity_bitmap() {
        let col = Column::opt_u64([
            Some(5),
            None,
            Some(7),
            None,
            None,
            None,
            None,
            None,
            Some(1),
        ]);
        assert_eq!(col.len(), 9);
        assert_eq!(col.dtype(), "uint64");
        assert_eq!(col.null_count(), 6);
        // Rows 0, 2 and 8 hold values: bits 0 and 2 of byte 0, bit 0 of byte 1.
        assert_eq!(col.validity_bitmap(), Some(vec![0b0000_0101, 0b0000_0001]));
        let bytes = col.to_le_bytes();
        assert_eq!(bytes.len(), 9 * 8);
        assert_eq!(&bytes[..8], &5u64.to_le_bytes());
        assert_eq!(
            &bytes[8..16],
            &0u64.to_le_bytes(),
            "a null row's value is zero"
        );
    }

    #[test]
    fn optional_float_column_exports_a_bitmap_and_zero_for_absent_rows() {
        let col = Column::opt_f64([Some(1.5), None, Some(-2.0)]);
        assert_eq!(col.dtype(), "float64");
        assert_eq!(col.null_count(), 1);
        assert_eq!(col.validity_bitmap(), Some(vec![0b0000_0101]));
        let bytes = col.to_le_bytes();
        assert_eq!(&bytes[..8], &1.5f64.to_le_bytes());
        assert_eq!(&bytes[8..16], &0.0f64.to_le_bytes());
        assert_eq!(&bytes[16..], &(-2.0f64).to_le_bytes());
    }

    #[test]
    fn plain_columns_have_no_bitmap() {
        assert_eq!(Column::U64(vec![1, 2]).validity_bitmap(), None);
        assert_eq!(Column::U64(vec![1, 2]).null_count(), 0);
    }
}
