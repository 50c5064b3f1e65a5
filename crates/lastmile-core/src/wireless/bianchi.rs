//! Bianchi's saturation throughput of the 802.11 DCF: G. Bianchi, "Performance Analysis of
//! the IEEE 802.11 Distributed Coordination Function", IEEE JSAC 18(3), March 2000.
//!
//! n stations always have a frame to send. Each transmits in a (generic) slot with
//! probability τ and sees a collision with the constant, independent probability p:
//! - eq. (7):  τ = 2(1 − 2p) / ((1 − 2p)(W + 1) + pW(1 − (2p)^m)), evaluated in the
//!   equivalent form τ = 2 / (1 + W + pW·Σ_{k<m}(2p)^k), which has no 0/0 at p = ½;
//! - eq. (9):  p = 1 − (1 − τ)^(n−1);
//!   solved for the unique fixed point by bisection on p (the residual is monotone);
//! - eq. (10): P_tr = 1 − (1 − τ)^n;  eq. (11): P_s = nτ(1 − τ)^(n−1) / P_tr;
//! - eq. (13): S = P_s·P_tr·E\[P\] / ((1 − P_tr)σ + P_tr·P_s·T_s + P_tr(1 − P_s)·T_c);
//! - eq. (14), basic access: T_s = H + E\[P\] + SIFS + δ + ACK + DIFS + δ,
//!   T_c = H + E\[P*\] + DIFS + δ;
//! - eq. (15), RTS/CTS: T_s = RTS + SIFS + δ + CTS + SIFS + δ + H + E\[P\] + SIFS + δ + ACK +
//!   DIFS + δ,  T_c = RTS + DIFS + δ.
//!
//! W = CWmin + 1 and m = log2((CWmax + 1)/(CWmin + 1)) backoff stages; E\[P\] = E\[P*\] = the
//! MSDU (the IP datagram), so H is the PLCP + MAC header + FCS + LLC/SNAP and H + E\[P\] is the
//! data frame's airtime. Bianchi assumes no retry limit, a backoff before every
//! transmission (no immediate access; a saturated station always has a post-backoff
//! pending, so this holds), and that every station resumes after DIFS following a collision.
//! The last one differs from the standard, where the bystanders of a collision defer EIFS
//! (see `standard_collision_time`).

use crate::engine::SimDuration;
use crate::wireless::mac::DcfConfig;

/// Basic access (DATA–ACK) or the four-way RTS/CTS handshake.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Access {
    Basic,
    RtsCts,
}

/// The model's inputs, durations in the paper's symbols.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct BianchiInput {
    /// n: saturated stations.
    pub stations: u32,
    /// W = CWmin + 1.
    pub w: u32,
    /// m: the number of times the window can double.
    pub m: u32,
    /// σ: the slot time.
    pub slot: SimDuration,
    /// T_s: the channel time of a successful transmission.
    pub t_s: SimDuration,
    /// T_c: the channel time of a collision.
    pub t_c: SimDuration,
    /// E\[P\] in bits.
    pub payload_bits: u64,
}

/// The fixed point and the throughput.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct BianchiResult {
    pub tau: f64,
    pub p: f64,
    pub p_tr: f64,
    pub p_s: f64,
    pub throughput_bps: f64,
}

impl BianchiInput {
    /// The model of `stations` saturated DCF stations sending `msdu_bytes` datagrams, with
    /// propagation delay δ, timings from eq. (14) or (15).
    pub fn for_dcf(
        cfg: &DcfConfig,
        stations: u32,
        msdu_bytes: u32,
        access: Access,
        delta: SimDuration,
    ) -> Self {
        let phy = &cfg.phy;
        let data = phy.data_airtime(msdu_bytes);
        let (t_s, t_c) = match access {
            Access::Basic => (
                data + phy.sifs + delta + phy.ack_airtime() + phy.difs() + delta,
                data + phy.difs() + delta,
            ),
            Access::RtsCts => (
                phy.rts_airtime()
                    + phy.sifs
                    + delta
                    + phy.cts_airtime()
                    + phy.sifs
                    + delta
                    + data
                    + phy.sifs
                    + delta
                    + phy.ack_airtime()
                    + phy.difs()
                    + delta,
                phy.rts_airtime() + phy.difs() + delta,
            ),
        };
        let ratio = (cfg.cw_max + 1) / (cfg.cw_min + 1);
        BianchiInput {
            stations,
            w: cfg.cw_min + 1,
            m: ratio.max(1).ilog2(),
            slot: phy.slot,
            t_s,
            t_c,
            payload_bits: 8 * u64::from(msdu_bytes),
        }
    }

    /// τ as a function of p, eq. (7).
    pub fn tau(&self, p: f64) -> f64 {
        let w = f64::from(self.w);
        let geometric: f64 = (0..self.m).map(|k| (2.0 * p).powi(k as i32)).sum();
        2.0 / (1.0 + w + p * w * geometric)
    }

    /// Solves eqs. (7) and (9) and evaluates eq. (13).
    pub fn solve(&self) -> BianchiResult {
        let n = f64::from(self.stations.max(1));
        let residual = |p: f64| p - (1.0 - (1.0 - self.tau(p)).powf(n - 1.0));
        let (mut lo, mut hi) = (0.0_f64, 1.0_f64);
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if residual(mid) > 0.0 {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        let p = 0.5 * (lo + hi);
        let tau = self.tau(p);
        let p_tr = 1.0 - (1.0 - tau).powf(n);
        let p_s = n * tau * (1.0 - tau).powf(n - 1.0) / p_tr;
        let mean_slot_s = (1.0 - p_tr) * self.slot.as_secs_f64()
            + p_tr * p_s * self.t_s.as_secs_f64()
            + p_tr * (1.0 - p_s) * self.t_c.as_secs_f64();
        BianchiResult {
            tau,
            p,
            p_tr,
            p_s,
            throughput_bps: p_s * p_tr * self.payload_bits as f64 / mean_slot_s,
        }
    }
}

/// T_c as the standard makes it, for use in place of eq. (14)/(15)'s T_c: after a collision
/// every station that was not transmitting has received a corrupted frame and defers EIFS
/// instead of DIFS (9.2.3.4), so the channel is lost for frame + δ + EIFS. (The colliding
/// stations themselves resume after their ACK/CTSTimeout, 222 µs, a little earlier, so this
/// slightly overstates the cost.) Not part of Bianchi's model: it explains most of the gap
/// between the model and a standard-conforming simulation as n grows.
pub fn standard_collision_time(
    cfg: &DcfConfig,
    msdu_bytes: u32,
    access: Access,
    delta: SimDuration,
) -> SimDuration {
    let phy = &cfg.phy;
    let frame = match access {
        Access::Basic => phy.data_airtime(msdu_bytes),
        Access::RtsCts => phy.rts_airtime(),
    };
    frame + delta + phy.eifs()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wireless::phy::PhyConfig;

    #[test]
    fn one_station_never_collides_and_waits_the_mean_initial_backoff() {
        let cfg = DcfConfig::with_phy(PhyConfig::preset("802.11b").unwrap());
        let model = BianchiInput::for_dcf(&cfg, 1, 1500, Access::Basic, SimDuration::ZERO);
        assert_eq!((model.w, model.m), (32, 5));
        let r = model.solve();
        assert!(r.p.abs() < 1e-9);
        assert!((r.tau - 2.0 / 33.0).abs() < 1e-12);
        // Cycle = T_s + (W−1)/2 slots = DIFS + 15.5·20 + DATA + SIFS + ACK.
        let cycle_s = (50.0 + 310.0 + 192.0 + 1536.0 * 8.0 / 11.0 + 10.0 + 304.0) * 1e-6;
        assert!((r.throughput_bps - 12000.0 / cycle_s).abs() < 1.0, "{r:?}");
    }

    #[test]
    fn fixed_point_satisfies_both_equations_and_p_grows_with_n() {
        let cfg = DcfConfig::with_phy(PhyConfig::preset("802.11b").unwrap());
        let mut last_p = 0.0;
        for n in [2, 5, 10, 50] {
            let model = BianchiInput::for_dcf(&cfg, n, 1500, Access::RtsCts, SimDuration::ZERO);
            let r = model.solve();
            let p9 = 1.0 - (1.0 - r.tau).powi(n as i32 - 1);
            assert!((r.p - p9).abs() < 1e-9, "eq. (9) at n = {n}");
            let eq7 = 2.0 * (1.0 - 2.0 * r.p)
                / ((1.0 - 2.0 * r.p) * 33.0 + r.p * 32.0 * (1.0 - (2.0 * r.p).powi(5)));
            assert!((r.tau - eq7).abs() < 1e-9, "eq. (7) at n = {n}");
            assert!(r.p > last_p);
            last_p = r.p;
        }
    }
}
