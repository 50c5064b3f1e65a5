//! The applications driven directly, as the world drives them: a timer at the flow's start,
//! then what each asks for.

use super::*;
use crate::units::{ByteSize, Duration, Rate};

fn at_ms(ms: u64) -> SimTime {
    SimTime::ZERO + SimDuration::from_millis(ms)
}

fn call(app: &mut AnyApp, now: SimTime, input: AppInput) -> Vec<AppAction> {
    let mut out = AppOutbox::default();
    app.handle(now, input, &mut out);
    out.actions
}

#[test]
fn bulk_connects_writes_everything_and_closes_at_its_start() {
    let spec = AppSpec::Bulk {
        bytes: ByteSize(10_000),
    };
    let mut app = spec.build(at_ms(5), 1, 0);
    assert_eq!(app.poll_timeout(), Some(at_ms(5)));
    assert_eq!(
        call(&mut app, at_ms(5), AppInput::Timer),
        [
            AppAction::Connect,
            AppAction::Write(10_000),
            AppAction::Close
        ]
    );
    assert_eq!(app.poll_timeout(), None);
    assert!(call(&mut app, at_ms(6), AppInput::Timer).is_empty());
}

#[test]
fn poisson_writes_packet_size_at_exponential_gaps_averaging_the_offered_rate() {
    // 1 Mbps of 1250-byte writes: a mean gap of 10 ms; 2000 writes.
    let spec = AppSpec::Poisson {
        rate: Rate(1_000_000),
        packet_size: ByteSize(1250),
        bytes: ByteSize(2000 * 1250),
    };
    let mut app = spec.build(at_ms(0), 7, 3);
    assert_eq!(
        call(&mut app, at_ms(0), AppInput::Timer),
        [AppAction::Connect]
    );
    let mut writes = 0;
    let mut last = at_ms(0);
    while let Some(t) = app.poll_timeout() {
        let actions = call(&mut app, t, AppInput::Timer);
        assert_eq!(actions[0], AppAction::Write(1250));
        writes += 1;
        last = t;
        if actions.len() == 2 {
            assert_eq!(actions[1], AppAction::Close);
        }
    }
    assert_eq!(writes, 2000);
    let mean_gap_s = last.as_secs_f64() / 2000.0;
    // The mean of 2000 exponential gaps has a standard error of 1/sqrt(2000) ≈ 2.2 %.
    assert!((mean_gap_s - 0.010).abs() < 0.010 * 0.08, "{mean_gap_s}");
}

#[test]
fn poisson_last_write_is_what_is_left() {
    let spec = AppSpec::Poisson {
        rate: Rate(8_000),
        packet_size: ByteSize(1000),
        bytes: ByteSize(2500),
    };
    let mut app = spec.build(at_ms(0), 1, 0);
    call(&mut app, at_ms(0), AppInput::Timer);
    let mut written = Vec::new();
    while let Some(t) = app.poll_timeout() {
        for a in call(&mut app, t, AppInput::Timer) {
            if let AppAction::Write(n) = a {
                written.push(n);
            }
        }
    }
    assert_eq!(written, [1000, 1000, 500]);
}

#[test]
fn udp_saturate_keeps_two_datagrams_ahead_until_its_duration_ends() {
    let spec = AppSpec::UdpSaturate {
        packet_size: ByteSize(1472),
        duration: Duration::from_millis(100),
    };
    let mut app = spec.build(at_ms(10), 1, 0);
    assert!(!app.uses_tcp());
    let one = AppAction::Datagram {
        payload_bytes: 1472,
    };
    assert_eq!(call(&mut app, at_ms(10), AppInput::Timer), [one, one]);
    assert_eq!(app.poll_timeout(), Some(at_ms(110)));
    assert_eq!(call(&mut app, at_ms(50), AppInput::DatagramLeft), [one]);
    assert_eq!(
        call(&mut app, at_ms(110), AppInput::Timer),
        [AppAction::Finish]
    );
    assert!(call(&mut app, at_ms(111), AppInput::DatagramLeft).is_empty());
    assert_eq!(app.poll_timeout(), None);
}

#[test]
fn app_checks_name_the_field_relative_to_the_app_table() {
    let e = AppSpec::Bulk { bytes: ByteSize(0) }.check().unwrap_err();
    assert_eq!(e.path, "bytes");
    let e = AppSpec::UdpSaturate {
        packet_size: ByteSize(70_000),
        duration: Duration::from_millis(1),
    }
    .check()
    .unwrap_err();
    assert_eq!(e.path, "packet_size");
    let e = AppSpec::Poisson {
        rate: Rate(0),
        packet_size: ByteSize(1000),
        bytes: ByteSize(1000),
    }
    .check()
    .unwrap_err();
    assert_eq!(e.path, "rate");
}
