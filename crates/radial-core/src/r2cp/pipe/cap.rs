//! A pipe's window under the engine's queue cap (beyond the R²CP paper):
//! what it may have outstanding, and how its congestion window grows and
//! is cut while the cap, not the window, holds it back.
//!
//! The cap (the engine's `queue_cap`) bounds a pipe's flight to about twice
//! its path's bandwidth-delay product, or its share of the receive buffer,
//! while other pipes share that buffer. Held there, the pipe is not limited
//! by its congestion window, and the window follows Linux's rules for a
//! sender its window does not limit (`tcp_is_cwnd_limited`,
//! include/net/tcp.h): in slow start it grows up to twice what the pipe may
//! have outstanding, in congestion avoidance not at all. A loss halves the
//! congestion window itself, as Linux's Reno does (`tcp_reno_ssthresh`,
//! net/ipv4/tcp_cong.c), so the first loss after a slow start that the cap
//! ended leaves the pipe at its cap.
//!
//! RCP alone on the same path has no cap: its slow start fills the path's
//! queue, overshoots, and the cut leaves it with half of the overshoot,
//! the path's whole bandwidth-delay product plus its queue when the queue
//! is deep. Cut from the cap instead, a pipe on a long path with a deep
//! queue and bursty random loss started every halving from less than RCP
//! alone, and on such a path a window regrows one segment per round trip,
//! half a second and more: three bursty satellite paths with 400-packet
//! queues and a buffer of twice the sum of their bandwidths times the
//! round trip carried 86.8 % of what the paths carry alone over 200 seeds,
//! and 100.4 % with these rules.

use super::Pipe;

impl Pipe {
    /// What the pipe may have outstanding: its congestion window, or the
    /// engine's cap on it ([`Pipe::queue_cap`]) if lower.
    pub fn window(&self) -> u64 {
        let cwnd = self.cwnd();
        self.queue_cap.map_or(cwnd, |c| cwnd.min(c))
    }

    /// Whether an arrival may grow the congestion window: always while the
    /// window bounds the pipe; while the cap does, only in slow start and
    /// up to twice the cap.
    pub(super) fn window_may_grow(&self) -> bool {
        let w = self.cc.window();
        match self.queue_cap {
            Some(cap) if w.cwnd >= cap => w.cwnd < w.ssthresh && w.cwnd < 2 * cap,
            _ => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::r2cp::pipe::Pipe;
    use crate::time::{Duration, Instant};

    const MSS: u64 = 1000;

    fn ms(v: u64) -> Instant {
        Instant::from_nanos(v * 1_000_000)
    }

    /// An established pipe whose sender holds 10,000 segments, capped at
    /// `cap` segments.
    fn capped(cap: u64) -> Pipe {
        let mut p = Pipe::established(10_000_000);
        p.queue_cap = Some(cap * MSS);
        p
    }

    /// Every 10 ms, requests what the window and the pace allow and answers
    /// the oldest request, `rounds` times; returns the next segment and the
    /// time.
    fn run(p: &mut Pipe, mut next: u64, mut t: u64, rounds: u64) -> (u64, u64) {
        for _ in 0..rounds {
            t += 10;
            while p.can_request(ms(t)) {
                p.request(ms(t), next * MSS, (next + 1) * MSS, 0);
                next += 1;
            }
            if let Some(&oldest) = p.outstanding.keys().next() {
                p.on_data(ms(t), (oldest + 1) as u32);
            }
        }
        (next, t)
    }

    #[test]
    fn a_slow_start_the_cap_ends_grows_the_window_to_twice_the_cap_and_no_further() {
        let mut p = capped(10);
        run(&mut p, 0, 20, 200);
        assert_eq!(p.window(), 10 * MSS);
        assert_eq!(p.cwnd(), 20 * MSS);
    }

    #[test]
    fn the_first_loss_after_such_a_slow_start_leaves_the_pipe_at_its_cap() {
        let mut p = capped(10);
        let (next, t) = run(&mut p, 0, 20, 200);
        // The oldest outstanding request is lost: three later ones answer.
        let lost = *p.outstanding.keys().next().unwrap();
        for k in 1..=3 {
            p.on_data(ms(t + k), (lost + 1 + k) as u32);
        }
        assert_eq!(p.recoveries, 1);
        assert_eq!(p.cwnd(), 10 * MSS, "halved from the window, not the cap");
        assert_eq!(p.window(), 10 * MSS);
        // In congestion avoidance at the cap the window no longer grows.
        run(&mut p, next, t + 10, 100);
        assert_eq!(p.cwnd(), 10 * MSS);
    }

    /// A path of 10 ms round trip (the handshake's) that answers ten
    /// segments a millisecond (a bandwidth-delay product of 100 segments),
    /// driven for `ms_total` ms from `t`: each millisecond the ten oldest
    /// requests answer if they left 10 ms ago, then the pipe asks what its
    /// window and pace allow.
    fn path(p: &mut Pipe, mut next: u64, t: u64, ms_total: u64) -> (u64, u64) {
        for now in t..t + ms_total {
            for _ in 0..10 {
                match p.outstanding.first_key_value() {
                    Some((&oldest, r)) if r.sent_at + Duration::from_millis(10) <= ms(now) => {
                        p.on_data(ms(now), (oldest + 1) as u32);
                    }
                    _ => break,
                }
            }
            while p.can_request(ms(now)) {
                p.request(ms(now), next * MSS, (next + 1) * MSS, 0);
                next += 1;
            }
        }
        (next, t + ms_total)
    }

    /// The pipe on that path with its congestion window set to `window`
    /// segments and its pace's bucket empty; then an answer arrives.
    /// Returns whether the pace lets a request leave at once.
    fn answer_when_paced(window: u64) -> bool {
        let mut p = capped(1000);
        let (_, t) = path(&mut p, 0, 20, 300);
        assert_eq!(p.bdp(), Some(100 * MSS), "the path's product");
        p.cc.restart(window * MSS, window * MSS);
        let (now, pace) = (ms(t), p.pace().expect("paced beside other pipes"));
        p.pacer.spend(now, pace, pace.depth);
        assert!(!p.pacer.ready(now, pace, MSS), "the bucket is empty");
        p.clock_pace(now, MSS);
        p.pacer.ready(now, p.pace().expect("still paced"), MSS)
    }

    #[test]
    fn below_its_path_s_product_an_answer_lets_the_request_it_clocks_go_at_once() {
        assert!(answer_when_paced(60));
    }

    #[test]
    fn above_its_path_s_product_the_pace_holds_every_request() {
        assert!(!answer_when_paced(300));
    }

    #[test]
    fn below_its_cap_the_window_keeps_its_own_rules() {
        let mut p = capped(1000);
        let before = p.cwnd();
        run(&mut p, 0, 20, 8);
        assert_eq!(
            p.cwnd(),
            before + 8 * MSS,
            "slow start: a segment per arrival"
        );
        assert!(p.window() < 1000 * MSS);
    }
}
