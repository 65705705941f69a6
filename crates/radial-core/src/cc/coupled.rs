//! Coupled congestion control for the subflows (pipes) of one multipath
//! connection: LIA (RFC 6356) and OLIA (Khalili, Gast, Popovic and Le
//! Boudec, "MPTCP is not Pareto-optimal", IEEE/ACM ToN 2013).
//!
//! Both change only the congestion-avoidance increase; slow start and the
//! reductions on loss stay each subflow's own (RFC 6356 §3; Linux's
//! `mptcp_coupled.c` and `mptcp_olia.c` the same). We express the coupled
//! increase as a *scale* on the subflow's uncoupled Reno increase of one
//! segment per window: a subflow that acknowledges one segment grows by
//! `scale × MSS² / cwnd`. With one subflow both algorithms give a scale of
//! exactly 1, so a single-path connection is plain Reno.
//!
//! The caller (the sender's multipath engine, or R²CP's receiver, which
//! sees the same windows and round trips from its own side) computes the
//! scale from a view of every subflow before it hands the subflow an
//! acknowledgment; [`super::Controller::set_increase_scale`] applies it.

use crate::time::Duration;

/// How the subflows of one connection share their increase.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Coupling {
    /// Every subflow grows as its own Reno (a multipath connection then
    /// takes one TCP's share per subflow on a shared bottleneck).
    #[default]
    Uncoupled,
    /// The Linked Increases Algorithm (RFC 6356 §3).
    Lia,
    /// Opportunistic Linked Increases (Khalili et al. 2013, §IV).
    Olia,
}

impl Coupling {
    /// Name as in protocol names (`lia`, `olia`, `uncoupled`).
    pub fn name(self) -> &'static str {
        match self {
            Coupling::Uncoupled => "uncoupled",
            Coupling::Lia => "lia",
            Coupling::Olia => "olia",
        }
    }
}

/// What the coupling needs of one subflow.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SubflowView {
    /// Congestion window in bytes (the slow-start threshold during fast
    /// recovery, where the window is inflated; Linux's
    /// `mptcp_get_crt_cwnd`).
    pub cwnd: u64,
    /// Smoothed round-trip time; a subflow without a sample yet takes no
    /// part (Linux: `tcp_sk(sk)->srtt` must be set).
    pub rtt: Option<Duration>,
    /// Bytes delivered between its last two losses or since the last one,
    /// whichever is more (OLIA's ℓ_r).
    pub interval: u64,
}

impl SubflowView {
    fn rate(&self) -> Option<(f64, f64)> {
        let rtt = self.rtt?.as_secs_f64();
        (rtt > 0.0).then_some((self.cwnd as f64, rtt))
    }
}

/// The scale on subflow `r`'s Reno increase (see the module
/// documentation). 1 when uncoupled, when `r` has no round-trip sample or
/// when it is the only subflow with one.
pub fn increase_scale(coupling: Coupling, subflows: &[SubflowView], r: usize) -> f64 {
    let Some((w_r, rtt_r)) = subflows.get(r).and_then(SubflowView::rate) else {
        return 1.0;
    };
    let live: Vec<(f64, f64, u64)> = subflows
        .iter()
        .filter_map(|s| s.rate().map(|(w, rtt)| (w, rtt, s.interval)))
        .collect();
    if live.len() < 2 {
        return 1.0;
    }
    let sum_rate: f64 = live.iter().map(|&(w, rtt, _)| w / rtt).sum();
    match coupling {
        Coupling::Uncoupled => 1.0,
        Coupling::Lia => {
            // RFC 6356 §3: per acknowledged segment, cwnd_r grows by
            // min(alpha × MSS² / cwnd_total, MSS² / cwnd_r), with
            // alpha = cwnd_total × max(cwnd_i / rtt_i²) / (Σ cwnd_i / rtt_i)².
            // As a scale on MSS² / cwnd_r: min(alpha × cwnd_r / total, 1).
            let best = live
                .iter()
                .map(|&(w, rtt, _)| w / (rtt * rtt))
                .fold(0.0, f64::max);
            (w_r * best / (sum_rate * sum_rate)).min(1.0)
        }
        Coupling::Olia => {
            // Khalili et al. §IV, eq. (5): per acknowledged segment (windows
            // in segments) w_r grows by
            //   (w_r / rtt_r²) / (Σ_p w_p / rtt_p)² + α_r / w_r,
            // that is, on the Reno increase 1 / w_r, a scale of
            //   w_r² / rtt_r² / (Σ_p w_p / rtt_p)² + α_r.
            let first = (w_r / rtt_r) * (w_r / rtt_r) / (sum_rate * sum_rate);
            first + olia_alpha(&live, w_r, rtt_r, subflows[r].interval)
        }
    }
}

/// OLIA's α_r: the paths with the largest window (M) give, the presumed
/// best paths (B: largest ℓ_p / rtt_p²) that have not the largest window
/// take, each by 1 / (|R| × |set|); nothing moves when B ⊆ M.
fn olia_alpha(live: &[(f64, f64, u64)], w_r: f64, rtt_r: f64, l_r: u64) -> f64 {
    let n = live.len() as f64;
    let max_w = live.iter().map(|&(w, ..)| w).fold(0.0, f64::max);
    let quality = |l: u64, rtt: f64| l as f64 / (rtt * rtt);
    let best_q = live
        .iter()
        .map(|&(_, rtt, l)| quality(l, rtt))
        .fold(0.0, f64::max);
    let in_m = |w: f64| w >= max_w;
    let in_b = |l: u64, rtt: f64| quality(l, rtt) >= best_q;
    let m = live.iter().filter(|&&(w, ..)| in_m(w)).count() as f64;
    let b_not_m = live
        .iter()
        .filter(|&&(w, rtt, l)| !in_m(w) && in_b(l, rtt))
        .count() as f64;
    if b_not_m == 0.0 {
        0.0
    } else if !in_m(w_r) && in_b(l_r, rtt_r) {
        1.0 / (n * b_not_m)
    } else if in_m(w_r) {
        -1.0 / (n * m)
    } else {
        0.0
    }
}

/// OLIA's inter-loss distances of one subflow: bytes delivered between its
/// last two losses and since the last one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LossIntervals {
    between: u64,
    since: u64,
}

impl LossIntervals {
    /// `bytes` newly delivered.
    pub fn on_delivered(&mut self, bytes: u64) {
        self.since += bytes;
    }

    /// A loss episode began (a fast recovery or a timeout). Linux counts a
    /// loss only if data was delivered since the last one.
    pub fn on_loss(&mut self) {
        if self.since > 0 {
            self.between = self.since;
            self.since = 0;
        }
    }

    /// ℓ_r: the larger of the two distances.
    pub fn value(&self) -> u64 {
        self.between.max(self.since)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(cwnd: u64, rtt_ms: u64, interval: u64) -> SubflowView {
        SubflowView {
            cwnd,
            rtt: Some(Duration::from_millis(rtt_ms)),
            interval,
        }
    }

    #[test]
    fn one_subflow_is_reno() {
        for c in [Coupling::Uncoupled, Coupling::Lia, Coupling::Olia] {
            assert_eq!(increase_scale(c, &[view(10_000, 50, 7)], 0), 1.0);
        }
    }

    #[test]
    fn subflows_without_samples_take_no_part() {
        let flows = [
            view(10_000, 50, 0),
            SubflowView {
                cwnd: 20_000,
                rtt: None,
                interval: 0,
            },
        ];
        assert_eq!(increase_scale(Coupling::Lia, &flows, 0), 1.0);
        assert_eq!(increase_scale(Coupling::Lia, &flows, 1), 1.0);
    }

    #[test]
    fn lia_on_two_equal_paths_grows_the_total_like_one_reno() {
        // Two identical subflows of window w: alpha = 2w × (w/r²) / (2w/r)²
        // = 1/2, and each grows by alpha × MSS²/(2w) = MSS²/(4w) per ACK: a
        // quarter of Reno each, which over both subflows' ACKs (twice as
        // many at the same total window 2w) is the growth of one Reno flow
        // of window 2w, MSS²/(2w) per ACK.
        let flows = [view(10_000, 50, 0), view(10_000, 50, 0)];
        let s = increase_scale(Coupling::Lia, &flows, 0);
        assert!((s - 0.25).abs() < 1e-12, "{s}");
    }

    #[test]
    fn lia_never_exceeds_reno_on_any_path() {
        // A long-RTT subflow with a large window beside a short one with the
        // same rate: alpha × cwnd_r / total alone would be 25; RFC 6356
        // caps the increase at the subflow's own Reno increase.
        let flows = [view(10_000, 1_000, 0), view(100, 10, 0)];
        assert_eq!(increase_scale(Coupling::Lia, &flows, 0), 1.0);
        let s1 = increase_scale(Coupling::Lia, &flows, 1);
        let expected = 100.0 * (100.0 / 1e-4) / (2e4_f64 * 2e4);
        assert!((s1 - expected).abs() < 1e-12, "{s1}");
    }

    #[test]
    fn olia_moves_window_from_the_largest_to_the_best() {
        // Path 0 has the larger window, path 1 the better loss interval:
        // B \ M = {1}; α_1 = 1/(2×1), α_0 = -1/(2×1).
        let flows = [view(20_000, 50, 100_000), view(10_000, 50, 400_000)];
        let s0 = increase_scale(Coupling::Olia, &flows, 0);
        let s1 = increase_scale(Coupling::Olia, &flows, 1);
        let sum = 30_000.0 / 0.05;
        let first = |w: f64| (w / 0.05) * (w / 0.05) / (sum * sum);
        assert!((s0 - (first(20_000.0) - 0.5)).abs() < 1e-12, "{s0}");
        assert!((s1 - (first(10_000.0) + 0.5)).abs() < 1e-12, "{s1}");
        assert!(s0 < 0.0 && s1 > 0.5);
    }

    #[test]
    fn olia_without_a_better_small_path_is_its_first_term() {
        // The largest window is also the best path: B \ M is empty.
        let flows = [view(20_000, 50, 400_000), view(10_000, 50, 100_000)];
        let s1 = increase_scale(Coupling::Olia, &flows, 1);
        let sum = 30_000.0 / 0.05;
        let first = (10_000.0 / 0.05) * (10_000.0 / 0.05) / (sum * sum);
        assert!((s1 - first).abs() < 1e-12);
    }

    #[test]
    fn loss_intervals_keep_the_larger_distance() {
        let mut l = LossIntervals::default();
        l.on_delivered(5_000);
        l.on_loss();
        l.on_delivered(1_000);
        assert_eq!(l.value(), 5_000);
        l.on_delivered(9_000);
        assert_eq!(l.value(), 10_000);
        l.on_loss();
        l.on_loss(); // nothing delivered since: not a new interval
        assert_eq!(l.value(), 10_000);
    }
}
