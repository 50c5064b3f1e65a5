//! Proportional rate reduction, RFC 6937 §3, with the slow-start reduction bound (PRR-SSRB,
//! the RFC's recommended variant), in bytes:
//!
//! * on entering recovery: prr_delivered = prr_out = 0, RecoverFS = snd.nxt − snd.una;
//! * on every ACK in recovery (the one that starts it included): prr_delivered +=
//!   DeliveredData (Δ SND.UNA + Δ SACKed); if pipe > ssthresh, sndcnt =
//!   ⌈prr_delivered · ssthresh / RecoverFS⌉ − prr_out (the proportional part); otherwise
//!   sndcnt = min(ssthresh − pipe, max(prr_delivered − prr_out, DeliveredData) + SMSS);
//!   sndcnt ≥ 0 and cwnd = pipe + sndcnt;
//! * on every transmission: prr_out += its bytes; at the end of recovery cwnd = ssthresh
//!   (`sack.rs`).
//!
//! So while the flight shrinks towards ssthresh, data leaves at ssthresh/RecoverFS of the
//! rate it is delivered (about one segment per two after a halving), and once it is below,
//! it grows back towards ssthresh no faster than slow start would.
//!
//! Left out: the conservative bound (PRR-CRB).

/// RFC 6937's counters for one recovery.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Prr {
    /// FlightSize at the start of recovery.
    pub recover_fs: u64,
    /// Bytes delivered to the receiver during recovery.
    pub prr_delivered: u64,
    /// Bytes sent during recovery.
    pub prr_out: u64,
}

impl Prr {
    pub fn start(recover_fs: u64) -> Self {
        Prr {
            recover_fs: recover_fs.max(1),
            prr_delivered: 0,
            prr_out: 0,
        }
    }

    /// One ACK delivering `delivered` bytes, with `pipe` bytes estimated in flight: cwnd.
    pub fn on_ack(&mut self, delivered: u64, pipe: u64, ssthresh: u64, mss: u64) -> u64 {
        self.prr_delivered += delivered;
        let sndcnt = if pipe > ssthresh {
            let target = (u128::from(self.prr_delivered) * u128::from(ssthresh))
                .div_ceil(u128::from(self.recover_fs));
            (target.min(u128::from(u64::MAX)) as u64).saturating_sub(self.prr_out)
        } else {
            let limit = self
                .prr_delivered
                .saturating_sub(self.prr_out)
                .max(delivered)
                + mss;
            (ssthresh - pipe).min(limit)
        };
        pipe + sndcnt
    }

    /// `bytes` were sent (new data or retransmitted) during the recovery.
    pub fn on_sent(&mut self, bytes: u64) {
        self.prr_out += bytes;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMSS: u64 = 1000;

    /// RFC 6937's example in spirit (tcp-family-notes §1.4): pipe = RecoverFS = 20 segments,
    /// ssthresh = 10; each ACK delivers one segment and the sender sends what cwnd − pipe
    /// allows. While pipe > ssthresh, one segment goes out per two delivered (in bytes the
    /// first ACK earns half a segment, so the sends fall on the even ACKs).
    #[test]
    fn rfc6937_one_segment_sent_per_two_delivered_while_pipe_exceeds_ssthresh() {
        let mut prr = Prr::start(20 * SMSS);
        let ssthresh = 10 * SMSS;
        let mut pipe = 20 * SMSS;
        let mut sent = Vec::new();
        for _ in 0..10 {
            pipe -= SMSS; // one segment left the network
            let cwnd = prr.on_ack(SMSS, pipe, ssthresh, SMSS);
            let mut n = 0;
            while cwnd >= pipe + SMSS {
                prr.on_sent(SMSS);
                pipe += SMSS;
                n += 1;
            }
            sent.push(n);
        }
        assert_eq!(sent, [0, 1, 0, 1, 0, 1, 0, 1, 0, 1]);
        assert_eq!(prr.prr_out, 5 * SMSS, "half of the 10 segments delivered");
        assert_eq!(pipe, 15 * SMSS);
    }

    #[test]
    fn rfc6937_below_ssthresh_the_slow_start_bound_limits_the_catch_up() {
        // A burst of losses left pipe far below ssthresh: each ACK may send what it
        // delivered plus one SMSS, not the whole gap at once.
        let mut prr = Prr::start(20 * SMSS);
        let cwnd = prr.on_ack(SMSS, 2 * SMSS, 10 * SMSS, SMSS);
        assert_eq!(cwnd, 2 * SMSS + 2 * SMSS, "pipe + DeliveredData + SMSS");
        prr.on_sent(2 * SMSS);
        let cwnd = prr.on_ack(3 * SMSS, 4 * SMSS, 10 * SMSS, SMSS);
        assert_eq!(cwnd, 4 * SMSS + 4 * SMSS);
        let cwnd = prr.on_ack(SMSS, 9 * SMSS, 10 * SMSS, SMSS);
        assert_eq!(cwnd, 10 * SMSS, "never above ssthresh");
    }
}
