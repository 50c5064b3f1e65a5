//! Numbers written as Python writes them, for the front ends whose output must match the
//! Python CLI's byte for byte: `float_repr` (`repr(x)`, what `json.dumps` writes) and
//! `general` (`format(x, ".Ng")`). Both start from Rust's `{:e}`, whose digits are the same
//! correctly rounded ones, and differ only in where they switch to scientific notation.
//! Beside them, what a front end reads or quotes as Python does: `parse_float` (`float(s)`
//! on a string) and `str_repr` (`repr(s)`, how an error message quotes a value).

/// A finite float as Python's `repr` writes it: the shortest digits that read back as the
/// same float, positional when the decimal exponent is from -5 (exclusive) to 16
/// (exclusive), with ".0" when whole; otherwise `d.ddde±XX`.
pub fn float_repr(value: f64) -> String {
    if !value.is_finite() {
        // Python's spelling in JSON.
        return non_finite(value, "NaN", "Infinity");
    }
    // Rust's `{:e}` writes the same shortest round-trip digits: "-1.2345e-7".
    let scientific = format!("{value:e}");
    let (mantissa, exponent) = split_exponent(&scientific);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    if (-5 < exponent) && (exponent < 16) {
        let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
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
        format!("{sign}{mantissa}{}", exponent_suffix(exponent))
    }
}

/// `x` to `significant` digits as Python's `format(x, ".{significant}g")` writes it: fixed
/// notation while the exponent is at least −4 and below `significant`, scientific (`1e+16`,
/// a two-digit exponent at least) otherwise, trailing zeros and a bare point dropped.
pub fn general(x: f64, significant: usize) -> String {
    if !x.is_finite() {
        return non_finite(x, "nan", "inf");
    }
    let precision = significant.max(1);
    // The exponent after rounding to `precision` digits decides the notation.
    let scientific = format!("{x:.*e}", precision - 1);
    let (mantissa, exponent) = split_exponent(&scientific);
    if (-4..precision as i32).contains(&exponent) {
        let decimals = (precision as i32 - 1 - exponent).max(0) as usize;
        return strip_zeros(&format!("{x:.decimals$}")).to_string();
    }
    format!("{}{}", strip_zeros(mantissa), exponent_suffix(exponent))
}

/// NaN and the infinities, in the given spellings.
fn non_finite(x: f64, nan: &str, infinity: &str) -> String {
    if x.is_nan() {
        nan.into()
    } else if x > 0.0 {
        infinity.into()
    } else {
        format!("-{infinity}")
    }
}

/// `{:e}`'s text split into its mantissa and its exponent.
fn split_exponent(scientific: &str) -> (&str, i32) {
    let (mantissa, exponent) = scientific
        .split_once('e')
        .expect("`{:e}` writes an exponent");
    (
        mantissa,
        exponent.parse().expect("`{:e}` writes a whole exponent"),
    )
}

/// Python's exponent: a sign always, two digits at least (`e+08`, `e-324`).
fn exponent_suffix(exponent: i32) -> String {
    let sign = if exponent < 0 { '-' } else { '+' };
    format!("e{sign}{:02}", exponent.unsigned_abs())
}

/// `1.500` → `1.5`, `2.000` → `2`; a number without a point is left as it is.
fn strip_zeros(text: &str) -> &str {
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.')
    } else {
        text
    }
}

/// `text` read as Python's `float(text)` reads a string: surrounding whitespace ignored,
/// underscores allowed between digits (`1_000`), `inf`, `infinity` and `nan` in any case;
/// None where Python raises `ValueError`. Python's non-ASCII digits are not read.
pub fn parse_float(text: &str) -> Option<f64> {
    let text = text.trim();
    let bytes = text.as_bytes();
    let digit_at = |i: usize| bytes.get(i).is_some_and(u8::is_ascii_digit);
    let mut plain = String::with_capacity(text.len());
    for (i, c) in text.char_indices() {
        if c == '_' {
            // PEP 515: an underscore only between two digits.
            if i == 0 || !digit_at(i - 1) || !digit_at(i + 1) {
                return None;
            }
            continue;
        }
        plain.push(c);
    }
    // Rust reads what Python reads otherwise, except the words Python does not take.
    let word = plain.trim_start_matches(['+', '-']).to_ascii_lowercase();
    let words = ["inf", "infinity", "nan"];
    if word.starts_with(|c: char| c.is_ascii_alphabetic()) && !words.contains(&word.as_str()) {
        return None;
    }
    plain.parse().ok()
}

/// `text` as Python's `repr` of a string quotes it: in single quotes, or double quotes
/// when it holds a single quote and no double quote; backslashes and that quote escaped,
/// `\t`, `\n`, `\r`, and other control characters as `\xNN`, `\uNNNN` or `\UNNNNNNNN`.
/// Unicode's other unprintable characters (format characters, separators other than the
/// space) are escaped only when Rust's `char::is_whitespace` knows them.
pub fn str_repr(text: &str) -> String {
    let quote = if text.contains('\'') && !text.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(text.len() + 2);
    out.push(quote);
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            ' ' => out.push(' '),
            c if c.is_control() || c.is_whitespace() => {
                let code = u32::from(c);
                let escaped = match code {
                    0..=0xff => format!("\\x{code:02x}"),
                    0x100..=0xffff => format!("\\u{code:04x}"),
                    _ => format!("\\U{code:08x}"),
                };
                out.push_str(&escaped);
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
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
    fn general_writes_what_python_writes() {
        // Printed by Python 3.11: [format(x, f".{n}g") for x, n in CASES]
        let cases = [
            (1000.0, 4, "1000"),
            (98.41, 4, "98.41"),
            (0.5, 4, "0.5"),
            (12345.0, 4, "1.234e+04"),
            (0.0001234, 4, "0.0001234"),
            (1e-05, 4, "1e-05"),
            (3.0, 4, "3"),
            (0.0, 4, "0"),
            (-2.5, 4, "-2.5"),
            (9999.6, 4, "1e+04"),
            (123.456, 3, "123"),
            (1e16, 4, "1e+16"),
            (3e8, 2, "3e+08"),
            (2.5e10, 2, "2.5e+10"),
            (0.000099999, 3, "0.0001"),
            (1.23e-7, 2, "1.2e-07"),
            (1e100, 3, "1e+100"),
        ];
        for (x, n, python) in cases {
            assert_eq!(general(x, n), python, "format({x}, '.{n}g')");
        }
    }

    #[test]
    fn strings_read_as_python_float_reads_them() {
        // Python: float(" 1_000.5 "), float("1e9"), float("-Infinity"), float("nan"), ...
        assert_eq!(parse_float(" 1_000.5 "), Some(1000.5));
        assert_eq!(parse_float("1e9"), Some(1e9));
        assert_eq!(parse_float("1E1_0"), Some(1e10));
        assert_eq!(parse_float(".5"), Some(0.5));
        assert_eq!(parse_float("5."), Some(5.0));
        assert_eq!(parse_float("+3"), Some(3.0));
        assert_eq!(parse_float("-Infinity"), Some(f64::NEG_INFINITY));
        assert!(parse_float("NaN").is_some_and(f64::is_nan));
        // Python raises ValueError for each of these.
        for bad in [
            "", "abc", "1__0", "_1", "1_", "1_.5", "1e", "infinit", "0x10", "1 0", "e5",
        ] {
            assert_eq!(parse_float(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn strings_quoted_as_python_repr_quotes_them() {
        // Python: repr("abc"), repr("x'y"), repr("x'\"y"), repr("a\tb\n"), repr("\x01\x7f\xa0")
        assert_eq!(str_repr("abc"), "'abc'");
        assert_eq!(str_repr("x'y"), "\"x'y\"");
        assert_eq!(str_repr("x'\"y"), "'x\\'\"y'");
        assert_eq!(str_repr("a\tb\n\\"), "'a\\tb\\n\\\\'");
        assert_eq!(
            str_repr("\u{1}\u{7f}\u{a0}\u{2028}é"),
            "'\\x01\\x7f\\xa0\\u2028é'"
        );
    }
}
