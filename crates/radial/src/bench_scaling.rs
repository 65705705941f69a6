//! `radial bench --scaling`: the S2 dumbbell with 20, 200 and 2,000 flows,
//! its bottleneck scaled with the flow count (N/2 Mbit/s, a queue of 5N
//! packets) and its duration cut in proportion (300, 30 and 3 s, so every
//! size carries about the same number of packets), timed against ns-2
//! running the same dumbbell (`tools/ns2/s2-dumbbell.tcl SEED N DURATION`)
//! in the same run. What should stay flat is wall time per packet-hop (a
//! packet crossing one link).

use std::path::Path;
use std::process::Command;
use std::time::Instant as WallClock;

use crate::bench::{child, median, Sample, S2};
use crate::error::CliError;

/// Flow counts and simulated seconds of the curve, and whether ns-2 runs
/// that size too (with 2,000 flows it took 450 s on a 2-core machine, 165×
/// ours; docs/performance.md has that run).
const SIZES: [(u32, f64, bool); 3] = [(20, 300.0, true), (200, 30.0, true), (2000, 3.0, false)];

/// The S2 scenario with `n` flows, a bottleneck of n/2 Mbit/s and 5n
/// packets of queue, `duration` seconds long.
fn scaled(n: u32, duration: f64) -> String {
    S2.replace("count = 20", &format!("count = {n}"))
        .replace(
            "rate = \"10Mbit/s\"",
            &format!("rate = \"{}kbit/s\"", n * 500),
        )
        .replace("queue = 100\n", &format!("queue = {}\n", 5 * n))
        .replace(
            "duration = \"300s\"",
            &format!("duration = \"{duration}s\""),
        )
}

/// `ns s2-dumbbell.tcl 1 n duration`: its wall time, if ns-2 ran it.
fn ns2(dir: &Path, n: u32, duration: f64) -> Option<f64> {
    let t = WallClock::now();
    let ok = Command::new("ns")
        .arg(dir.join("s2-dumbbell.tcl"))
        .args(["1", &n.to_string(), &duration.to_string()])
        .output()
        .ok()?
        .status
        .success();
    ok.then(|| t.elapsed().as_secs_f64())
}

/// Runs the curve, `repeat` times per point (median), and prints its table.
pub fn scaling(repeat: u32, ns2_dir: Option<&Path>) -> Result<(), CliError> {
    let have_ns = ns2_dir.is_some() && Command::new("ns").arg("-version").output().is_ok();
    println!(
        "scaling: S2's dumbbell with N flows, bottleneck N/2 Mbit/s, queue 5N (seed 1), median of {}",
        repeat.max(1)
    );
    println!(
        "| flows | simulated | packet-hops | radial (whole process) | ns per packet-hop | ns-2 (whole process) | ns per packet-hop | speed-up |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    let dir = std::env::temp_dir().join(format!("radial-scaling-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| crate::error::io_err(&dir, e))?;
    for (n, duration, with_ns2) in SIZES {
        let file = dir.join(format!("s2-{n}.toml"));
        std::fs::write(&file, scaled(n, duration)).map_err(|e| crate::error::io_err(&file, e))?;
        let args = vec!["--scenario".to_string(), file.display().to_string()];
        let mut ours: Vec<Sample> = Vec::new();
        let mut theirs = Vec::new();
        for _ in 0..repeat.max(1) {
            ours.push(child(&args)?);
            if let (true, true, Some(d)) = (have_ns, with_ns2, ns2_dir) {
                theirs.extend(ns2(d, n, duration));
            }
        }
        let hops = ours[0].hops;
        let process = median(ours.iter().map(|s| s.process_s).collect());
        let per_hop = |s: f64| s / hops.max(1) as f64 * 1e9;
        let (ns_cells, speedup) = if theirs.is_empty() {
            ("not measured | — ".to_string(), "—".to_string())
        } else {
            let t = median(theirs);
            (
                format!("{t:.2} s | {:.0}", per_hop(t)),
                format!("{:.1}×", t / process),
            )
        };
        println!(
            "| {n} | {duration} s | {hops} | {process:.2} s | {:.0} | {ns_cells} | {speedup} |",
            per_hop(process)
        );
    }
    println!(
        "(ns-2's time per packet-hop is over the packet-hops of our run of the same dumbbell.)"
    );
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scaled_dumbbell_has_n_flows_and_a_scaled_bottleneck() {
        let sc = radial_sim::Scenario::parse("s2.toml", &scaled(200, 30.0)).unwrap();
        let spec = sc.build(&sc.points()[0], 1).unwrap();
        assert_eq!(spec.flows.len(), 200);
        assert_eq!(spec.links.len(), 1 + 2 * 200);
        assert_eq!(spec.links[0].rate_forward.bps(), 100_000_000);
        assert_eq!(spec.links[0].queue, 1000);
        assert_eq!(spec.duration.as_secs_f64(), 30.0);
        // 20 flows is S2 itself.
        let s2 = radial_sim::Scenario::parse("s2.toml", &scaled(20, 300.0)).unwrap();
        let spec = s2.build(&s2.points()[0], 1).unwrap();
        assert_eq!(spec.flows.len(), 20);
        assert_eq!(spec.links[0].rate_forward.bps(), 10_000_000);
        assert_eq!(spec.links[0].queue, 100);
    }
}
