//! JSON written as Python's `json.dumps` writes it with its defaults, so that
//! `lastmile-run` prints what `lastmile run --json` prints, byte for byte but the command
//! line and the wall-clock time: `", "` between items and `": "` after keys, every
//! character outside printable ASCII escaped (`ensure_ascii`), and numbers as Python's
//! `repr` writes floats (`1e-05`, `1e+16`, `2.0`: `lastmile_core::pyfmt::float_repr`).
//!
//! The summary's non-finite numbers are already `null` on both sides: the core's JSON
//! writes them so before Python reads it.

use std::io::{self, Write};

use lastmile_core::pyfmt::float_repr;
use serde_json::ser::{CharEscape, Formatter};

/// `serde_json`'s compact formatter with Python's separators, escapes and float repr.
#[derive(Clone, Copy, Debug, Default)]
pub struct PythonFormatter;

impl Formatter for PythonFormatter {
    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        if first {
            Ok(())
        } else {
            w.write_all(b", ")
        }
    }

    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        if first {
            Ok(())
        } else {
            w.write_all(b", ")
        }
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b": ")
    }

    fn write_f64<W: ?Sized + Write>(&mut self, w: &mut W, value: f64) -> io::Result<()> {
        w.write_all(float_repr(value).as_bytes())
    }

    fn write_f32<W: ?Sized + Write>(&mut self, w: &mut W, value: f32) -> io::Result<()> {
        self.write_f64(w, f64::from(value))
    }

    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        // serde_json has escaped the quote, the backslash and the control characters;
        // what is left outside printable ASCII (DEL and every non-ASCII character) is
        // written as \uXXXX, in UTF-16 units, as `ensure_ascii` does.
        let mut start = 0;
        for (i, c) in fragment.char_indices() {
            if c.is_ascii() && c != '\u{7f}' {
                continue;
            }
            w.write_all(&fragment.as_bytes()[start..i])?;
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                write!(w, "\\u{unit:04x}")?;
            }
            start = i + c.len_utf8();
        }
        w.write_all(&fragment.as_bytes()[start..])
    }

    fn write_char_escape<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        escape: CharEscape,
    ) -> io::Result<()> {
        let text: &[u8] = match escape {
            CharEscape::Quote => b"\\\"",
            CharEscape::ReverseSolidus => b"\\\\",
            CharEscape::Solidus => b"\\/",
            CharEscape::Backspace => b"\\b",
            CharEscape::FormFeed => b"\\f",
            CharEscape::LineFeed => b"\\n",
            CharEscape::CarriageReturn => b"\\r",
            CharEscape::Tab => b"\\t",
            CharEscape::AsciiControl(byte) => return write!(w, "\\u{byte:04x}"),
        };
        w.write_all(text)
    }
}

/// `value` as `json.dumps(value)` writes it.
pub fn to_string<T: serde::Serialize + ?Sized>(value: &T) -> serde_json::Result<String> {
    let mut out = Vec::with_capacity(4096);
    let mut ser = serde_json::Serializer::with_formatter(&mut out, PythonFormatter);
    value.serialize(&mut ser)?;
    Ok(String::from_utf8(out).expect("only ASCII is written"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_and_separators_are_json_dumps_defaults() {
        #[derive(serde::Serialize)]
        struct S<'a> {
            name: &'a str,
            list: Vec<u32>,
            none: Option<u8>,
            yes: bool,
        }
        let s = S {
            name: "a\"b\\c\nd\u{1}é€😀\u{7f}",
            list: vec![1, 2],
            none: None,
            yes: true,
        };
        // Python: json.dumps({"name": "a\"b\\c\nd\x01é€😀\x7f", "list": [1, 2], "none": None, "yes": True})
        assert_eq!(
            to_string(&s).unwrap(),
            r#"{"name": "a\"b\\c\nd\u0001\u00e9\u20ac\ud83d\ude00\u007f", "list": [1, 2], "none": null, "yes": true}"#
        );
    }
}
