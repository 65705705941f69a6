//! Rates and stalls from sampled in-order delivery (`series.csv`,
//! `pipes.csv`): what the demo and the sequence figures tabulate and plot.

use crate::sweep::RunResult;

/// The flow named `download`: its index and its in-order delivery over
/// time, `(t, bytes)`.
pub fn download(r: &RunResult) -> Option<(u32, Vec<(f64, u64)>)> {
    let fi = r.summary.flows.iter().position(|f| f.name == "download")? as u32;
    let pts = r
        .series
        .iter()
        .filter(|p| p.flow == fi)
        .map(|p| (p.t, p.delivered))
        .collect();
    Some((fi, pts))
}

/// Pipe `path` of flow `fi`: its new bytes over time.
pub fn pipe_points(r: &RunResult, fi: u32, path: u16) -> Vec<(f64, u64)> {
    r.pipe_series
        .iter()
        .filter(|p| p.flow == fi && p.path == path)
        .map(|p| (p.t, p.delivered))
        .collect()
}

/// Bytes delivered by time `t` (the last sample at or before it), from
/// `(t, bytes)` samples in time order.
pub fn delivered_at(pts: &[(f64, u64)], t: f64) -> u64 {
    pts.iter()
        .take_while(|(s, _)| *s <= t + 1e-9)
        .last()
        .map_or(0, |p| p.1)
}

/// Mbit/s of `bytes` over `secs`.
pub fn mbps(bytes: u64, secs: f64) -> f64 {
    bytes as f64 * 8.0 / secs / 1e6
}

/// Mean rate between `a` and `b` seconds, in Mbit/s.
pub fn rate_between(pts: &[(f64, u64)], a: f64, b: f64) -> f64 {
    mbps(delivered_at(pts, b) - delivered_at(pts, a), b - a)
}

/// Throughput over one-second bins, `(end of bin, Mbit/s)`.
pub fn binned(pts: &[(f64, u64)]) -> Vec<(f64, f64)> {
    let end = pts.last().map_or(0.0, |p| p.0).floor() as u64;
    (1..=end)
        .map(|s| (s as f64, rate_between(pts, s as f64 - 1.0, s as f64)))
        .collect()
}

/// Standard deviation of the one-second rates whose bins lie in `[a, b]`.
pub fn binned_sd(pts: &[(f64, u64)], a: f64, b: f64) -> f64 {
    let v = bins_in(pts, a, b);
    if v.len() < 2 {
        return 0.0;
    }
    let m = v.iter().sum::<f64>() / v.len() as f64;
    (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (v.len() - 1) as f64).sqrt()
}

/// Share of the one-second rates in `[a, b]` within `tol` (relative) of
/// `target`.
pub fn share_near(pts: &[(f64, u64)], a: f64, b: f64, target: f64, tol: f64) -> f64 {
    let v: Vec<f64> = bins_in(pts, a, b);
    if v.is_empty() {
        return 0.0;
    }
    let near = v
        .iter()
        .filter(|r| (*r - target).abs() <= tol * target)
        .count();
    near as f64 / v.len() as f64
}

fn bins_in(pts: &[(f64, u64)], a: f64, b: f64) -> Vec<f64> {
    binned(pts)
        .into_iter()
        .filter(|&(t, _)| t - 1.0 >= a - 1e-9 && t <= b + 1e-9)
        .map(|(_, r)| r)
        .collect()
}

/// The longest time without progress that overlaps `[at, at + watch)`, at
/// the sampling resolution.
pub fn stall_after(pts: &[(f64, u64)], at: f64, watch: f64) -> f64 {
    let mut longest: f64 = 0.0;
    let mut last_progress: Option<(f64, u64)> = None;
    for &(t, d) in pts {
        match last_progress {
            Some((t0, d0)) if d == d0 => {
                if t > at && t0 < at + watch {
                    longest = longest.max(t - t0);
                }
            }
            _ => last_progress = Some((t, d)),
        }
    }
    longest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stall_is_the_longest_flat_stretch_overlapping_the_watch() {
        let pts = [
            (20.0, 10),
            (21.0, 20),
            (22.0, 20),
            (23.0, 20),
            (24.0, 30),
            (25.0, 40),
        ];
        assert_eq!(stall_after(&pts, 21.0, 8.0), 2.0);
        // A stall that began before the change still counts whole.
        assert_eq!(stall_after(&pts, 21.5, 8.0), 2.0);
        assert_eq!(stall_after(&pts, 10.0, 8.0), 0.0);
        assert_eq!(stall_after(&pts, 23.0, 8.0), 0.0);
    }

    #[test]
    fn bins_are_per_second_rates() {
        let pts = [(0.5, 0), (1.0, 125_000), (2.0, 375_000), (3.0, 500_000)];
        assert_eq!(binned(&pts), vec![(1.0, 1.0), (2.0, 2.0), (3.0, 1.0)]);
        assert_eq!(rate_between(&pts, 1.0, 3.0), 1.5);
        assert!((binned_sd(&pts, 0.0, 3.0) - (1.0f64 / 3.0).sqrt()).abs() < 1e-12);
        assert_eq!(binned_sd(&pts, 2.0, 3.0), 0.0, "one bin");
        assert_eq!(share_near(&pts, 0.0, 3.0, 1.0, 0.05), 2.0 / 3.0);
    }
}
