//! The movement machine against WTCP §6's description of a handoff and the survey's
//! overlapping cells.

use super::*;

fn ms(n: u64) -> SimDuration {
    SimDuration::from_millis(n)
}
fn at(n: u64) -> SimTime {
    SimTime::ZERO + ms(n)
}

fn config(dwell: Dwell) -> MoverConfig {
    MoverConfig {
        cells: 3,
        start: 0,
        dwell,
        next: NextCell::Next,
        handoff_delay: ms(50),
        route_update_delay: vec![ms(20); 3],
        overlap: SimDuration::ZERO,
        warning: None,
    }
}

/// Runs the mover up to `until`, recording (time, move).
fn run(cfg: MoverConfig, seed: u64, until: SimTime) -> Vec<(SimTime, Move)> {
    let mut m = Mover::new(cfg, RngStream::derive(seed, "mobility/mh1"));
    let mut out = Vec::new();
    m.start(SimTime::ZERO, &mut out);
    let mut log: Vec<(SimTime, Move)> = out.drain(..).map(|mv| (SimTime::ZERO, mv)).collect();
    while let Some(t) = m.poll_timeout().filter(|&t| t <= until) {
        m.handle(t, &mut out);
        log.extend(out.drain(..).map(|mv| (t, mv)));
    }
    log
}

#[test]
fn wtcp_handoff_leaves_then_joins_after_the_handoff_delay_and_the_gateway_learns_later() {
    let log = run(config(Dwell::Schedule(vec![at(1000)])), 1, at(10_000));
    assert_eq!(
        log,
        [
            (at(0), Move::Join { cell: 0 }),
            (at(0), Move::RouteUpdate { cell: 0 }),
            (
                at(1000),
                Move::Handoff {
                    from: 0,
                    to: 1,
                    outage: ms(50)
                }
            ),
            (at(1000), Move::Leave { cell: 0 }),
            (at(1050), Move::Join { cell: 1 }),
            (at(1070), Move::RouteUpdate { cell: 1 }),
        ],
        "one handoff, then the mobile stays (the schedule is over)"
    );
}

#[test]
fn overlapping_cells_join_the_new_cell_before_leaving_the_old_one() {
    let mut cfg = config(Dwell::Schedule(vec![at(1000)]));
    cfg.handoff_delay = SimDuration::ZERO;
    cfg.overlap = ms(300);
    cfg.route_update_delay = vec![SimDuration::ZERO; 3];
    let log = run(cfg, 1, at(10_000));
    assert_eq!(
        log[2..],
        [
            (
                at(1000),
                Move::Handoff {
                    from: 0,
                    to: 1,
                    outage: SimDuration::ZERO
                }
            ),
            (at(1000), Move::Join { cell: 1 }),
            (at(1000), Move::RouteUpdate { cell: 1 }),
            (at(1300), Move::Leave { cell: 0 }),
        ]
    );
}

#[test]
fn residence_is_exponential_with_the_mean_counted_from_joining() {
    let mut cfg = config(Dwell::Exponential(SimDuration::from_secs(10)));
    cfg.handoff_delay = ms(50);
    let log = run(cfg, 7, SimTime::ZERO + SimDuration::from_secs(40_000));
    let joins: Vec<SimTime> = log
        .iter()
        .filter(|(_, m)| matches!(m, Move::Join { .. }))
        .map(|&(t, _)| t)
        .collect();
    let breaks: Vec<SimTime> = log
        .iter()
        .filter(|(_, m)| matches!(m, Move::Handoff { .. }))
        .map(|&(t, _)| t)
        .collect();
    assert!(breaks.len() > 3000);
    let stays: Vec<f64> = joins
        .iter()
        .zip(&breaks)
        .map(|(j, b)| b.saturating_since(*j).as_secs_f64())
        .collect();
    let mean = stays.iter().sum::<f64>() / stays.len() as f64;
    // 4000 draws of an exponential: the standard error of the mean is 10 / sqrt(4000) s.
    assert!((mean - 10.0).abs() < 0.5, "mean residence {mean} s");
    let share_over_mean = stays.iter().filter(|&&s| s > 10.0).count() as f64 / stays.len() as f64;
    assert!((share_over_mean - (-1.0f64).exp()).abs() < 0.03);
    // The next cell is the next of the list, cyclically.
    let cells: Vec<usize> = log
        .iter()
        .filter_map(|(_, m)| match m {
            Move::Join { cell } => Some(*cell),
            _ => None,
        })
        .take(5)
        .collect();
    assert_eq!(cells, [0, 1, 2, 0, 1]);
}

#[test]
fn random_next_cell_is_never_the_current_one_and_the_same_seed_moves_the_same_way() {
    let mut cfg = config(Dwell::Exponential(SimDuration::from_secs(1)));
    cfg.next = NextCell::Random;
    let a = run(cfg.clone(), 3, SimTime::ZERO + SimDuration::from_secs(2000));
    assert_eq!(
        a,
        run(cfg.clone(), 3, SimTime::ZERO + SimDuration::from_secs(2000))
    );
    assert_ne!(a, run(cfg, 4, SimTime::ZERO + SimDuration::from_secs(2000)));
    let mut seen = [0usize; 3];
    for (_, m) in &a {
        if let Move::Handoff { from, to, .. } = m {
            assert_ne!(from, to);
            seen[*to] += 1;
        }
    }
    assert!(
        seen.iter().all(|&n| n > 300),
        "every cell is visited: {seen:?}"
    );
}

#[test]
fn freeze_warning_comes_its_lead_before_the_handoff() {
    let mut cfg = config(Dwell::Schedule(vec![at(1000), at(1100)]));
    cfg.warning = Some(ms(200));
    let log = run(cfg, 1, at(10_000));
    let warns: Vec<(SimTime, Move)> = log
        .iter()
        .copied()
        .filter(|(_, m)| matches!(m, Move::Warn { .. }))
        .collect();
    // The second handoff (scheduled at 1100 ms) waits for the join at 1050 ms; its warning
    // cannot come before the join.
    assert_eq!(
        warns,
        [
            (at(800), Move::Warn { at: at(1000) }),
            (at(1050), Move::Warn { at: at(1100) })
        ]
    );
}
