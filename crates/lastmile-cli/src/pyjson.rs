//! JSON written as Python's `json.dumps` writes it with its defaults, so that
//! `lastmile-run` prints what `lastmile run --json` prints, byte for byte but the command
//! line and the wall-clock time: `", "` between items and `": "` after keys, every
//! character outside printable ASCII escaped (`ensure_ascii`), and numbers as Python's
//! `repr` writes floats (`1e-05`, `1e+16`, `2.0`).
//!
//! The summary's non-finite numbers are already `null` on both sides: the core's JSON
//! writes them so before Python reads it.

use std::io::{self, Write};

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

/// A finite float as Python's `repr` writes it: the shortest digits that read back as the
/// same float, positional when the decimal exponent is from -5 (exclusive) to 16
/// (exclusive), with ".0" when whole; otherwise `d.ddde±XX`.
pub fn float_repr(value: f64) -> String {
    if !value.is_finite() {
        // Not reached for the summary (see the module notes); Python's spelling.
        return if value.is_nan() {
            "NaN".into()
        } else if value > 0.0 {
            "Infinity".into()
        } else {
            "-Infinity".into()
        };
    }
    // Rust's `{:e}` writes the same shortest round-trip digits: "-1.2345e-7".
    let scientific = format!("{value:e}");
    let (mantissa, exponent) = scientific
        .split_once('e')
        .expect("`{:e}` writes an exponent");
    let exponent: i32 = exponent.parse().expect("`{:e}` writes a whole exponent");
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    if (-5 < exponent) && (exponent < 16) {
        let point = exponent + 1; // digits before the decimal point
        let body = if point <= 0 {
            format!("0.{}{digits}", "0".repeat(point.unsigned_abs() as usize))
        } else if point as usize >= digits.len() {
            format!("{digits}{}.0", "0".repeat(point as usize - digits.len()))
        } else {
            let (whole, fraction) = digits.split_at(point as usize);
            format!("{whole}.{fraction}")
        };
        format!("{sign}{body}")
    } else {
        let (first, rest) = digits.split_at(1);
        let fraction = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let exp_sign = if exponent < 0 { '-' } else { '+' };
        format!(
            "{sign}{first}{fraction}e{exp_sign}{:02}",
            exponent.unsigned_abs()
        )
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
    fn floats_read_as_python_repr_writes_them() {
        // Each pair: the float, then Python 3.11's repr of it.
        let cases: &[(f64, &str)] = &[
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (2.0, "2.0"),
            (0.1, "0.1"),
            (1.0 / 3.0, "0.3333333333333333"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (0.000012345, "1.2345e-05"),
            (123456.789, "123456.789"),
            (1e15, "1000000000000000.0"),
            (1e16, "1e+16"),
            (1.5e16, "1.5e+16"),
            (-2.5e-7, "-2.5e-07"),
            (1e100, "1e+100"),
            (5e-324, "5e-324"),
            (f64::MAX, "1.7976931348623157e+308"),
            (158597000.0, "158597000.0"),
            (0.051730, "0.05173"),
        ];
        for &(value, python) in cases {
            assert_eq!(float_repr(value), python, "{value:e}");
        }
    }

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
