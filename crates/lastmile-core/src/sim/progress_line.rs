//! The line a long run shows on stderr while it goes on: the simulated time reached, the
//! events processed and their rate. One wording for every front end (`lastmile run`,
//! `lastmile-run`), each putting its own `<program>: ` before it; its numbers are written
//! as Python's format specifications write them (`general` is `{:.Ng}`), so that both print
//! the same bytes.

/// The progress line of a run at `sim_s` of `stop_s` simulated seconds after `events`
/// events, with the events per second measured since the last line (the front end times
/// it; the simulation never reads a clock).
pub fn progress_line(sim_s: f64, stop_s: f64, events: u64, events_per_s: f64) -> String {
    let percent = if stop_s > 0.0 {
        100.0 * sim_s / stop_s
    } else {
        100.0
    };
    format!(
        "{} s of {} s simulated ({percent:.1} %), {:.1} M events, {:.2} M events/s; Ctrl-C \
         stops",
        general(sim_s, 4),
        general(stop_s, 4),
        events as f64 / 1e6,
        events_per_s / 1e6
    )
}

/// `x` to `significant` digits as Python's `format(x, ".{significant}g")` writes it: fixed
/// notation while the exponent is at least −4 and below `significant`, scientific (`1e+16`,
/// a two-digit exponent at least) otherwise, trailing zeros and a bare point dropped.
pub fn general(x: f64, significant: usize) -> String {
    if !x.is_finite() {
        return if x.is_nan() {
            "nan".into()
        } else if x > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        };
    }
    let precision = significant.max(1);
    // The exponent after rounding to `precision` digits decides the notation.
    let scientific = format!("{x:.*e}", precision - 1);
    let (mantissa, exponent) = scientific.split_once('e').expect("an exponent");
    let exponent: i32 = exponent.parse().expect("a whole exponent");
    if (-4..precision as i32).contains(&exponent) {
        let decimals = (precision as i32 - 1 - exponent).max(0) as usize;
        return strip_zeros(&format!("{x:.decimals$}")).to_string();
    }
    format!(
        "{}e{}{:02}",
        strip_zeros(mantissa),
        if exponent < 0 { '-' } else { '+' },
        exponent.unsigned_abs()
    )
}

/// `1.500` → `1.5`, `2.000` → `2`; a number without a point is left as it is.
fn strip_zeros(text: &str) -> &str {
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.')
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn the_line_says_where_the_run_stands() {
        // Python: f"{123.456:.4g} s of {1000.0:.4g} s simulated ({12.3456:.1f} %), "
        //         f"{12.345678:.1f} M events, {11.2:.2f} M events/s; Ctrl-C stops"
        assert_eq!(
            progress_line(123.456, 1000.0, 12_345_678, 11.2e6),
            "123.5 s of 1000 s simulated (12.3 %), 12.3 M events, 11.20 M events/s; Ctrl-C stops"
        );
    }
}
