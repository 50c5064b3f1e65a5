//! The line a long run shows on stderr while it goes on: the simulated time reached, the
//! events processed and their rate. One wording for every front end (`lastmile run`,
//! `lastmile-run`), each putting its own `<program>: ` before it; its numbers are written
//! as Python's format specifications write them (`crate::pyfmt`), so that both print the
//! same bytes.

use crate::pyfmt::general;

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

#[cfg(test)]
mod tests {
    use super::*;

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
