//! Figures drawn as sequence plots (R²CP's handoffs, migration,
//! aggregation, policy and blackouts) and their checks.

use super::*;

/// Figure 11's checks (R²CP's engine or pTCP's): the policy holds the
/// target, and the WWAN only fills the gap; on the variants named
/// `{prefix}best-effort` and `{prefix}target`, each check named after the
/// protocol they run.
pub(super) fn policy_checks(figure: &str, runs: &[(&str, &RunResult)], prefix: &str) -> Vec<Check> {
    let mut checks = Vec::new();

    let get = |v: &str| {
        runs.iter()
            .find(|(x, _)| *x == v)
            .and_then(|(_, r)| download(r).map(|(fi, pts)| (*r, fi, pts)))
    };
    let (best_name, target_name) = (format!("{prefix}best-effort"), format!("{prefix}target"));
    let (Some((rb, fb, best)), Some((rt, ft, target))) = (get(&best_name), get(&target_name))
    else {
        return vec![missing(
            format!("the policy figure's checks ({prefix}…)"),
            format!("no `download` flow in variant `{best_name}` or `{target_name}`"),
        )];
    };
    let who = named_flow(rt, "download").map_or(String::new(), |f| format!("`{}`: ", f.protocol));
    // The target the policy flow was given, from its run's scenario.
    let Some(goal) = policy_target(figure, &target_name) else {
        return vec![missing(
            format!("{who}the policy figure's checks"),
            format!("no policy target on a flow of variant `{target_name}`"),
        )];
    };
    {
        let (a, b) = (POLICY_FROM_S, rt.summary.duration_s);
        let mean = rate_between(&target, a, b);
        checks.push(Check {
            what: format!("{who}with the policy the aggregate holds the {goal} Mbit/s target (within {:.0} %)", NEAR * 100.0),
            holds: (mean - goal).abs() <= NEAR * goal,
            detail: format!("{mean:.2} Mbit/s from {a:.0} s on"),
        });
        let near = |pts: &[(f64, u64)]| share_near(pts, a, b, goal, NEAR);
        let (nt, nb) = (near(&target), near(&best));
        checks.push(Check {
                    what: format!("{who}the aggregate stays at the target: more of its 1 s rates are within {:.0} % of {goal} Mbit/s than best effort's", NEAR * 100.0),
                    holds: nt > nb,
                    detail: format!("{:.0} % of the seconds against {:.0} %", nt * 100.0, nb * 100.0),
                });
        let wwan = |r: &RunResult, fi| rate_between(&pipe_points(r, fi, 1), a, b);
        let (wt, wb) = (wwan(rt, ft), wwan(rb, fb));
        checks.push(Check {
            what: format!("{who}the WWAN only fills the gap: it carries less than best effort"),
            holds: wt < wb,
            detail: format!("{wt:.2} against {wb:.2} Mbit/s"),
        });
    }
    checks
}

/// How near the target the policy figure's rates count as at it.
const NEAR: f64 = 0.05;

/// The target rate (Mbit/s) of the first flow that has one in `figure`'s
/// scenario at variant `variant`.
fn policy_target(figure: &str, variant: &str) -> Option<f64> {
    use radial_sim::spec::FlowProtocol;
    let spec = spec_where(figure, "variant", variant)?;
    spec.flows.iter().find_map(|f| {
        let target = match &f.protocol {
            FlowProtocol::R2cp(c) => c.target,
            FlowProtocol::Ptcp(c) => c.target,
            _ => None,
        }?;
        Some(target.rate.bps() as f64 / 1e6)
    })
}

/// Where the policy figure's rates are taken from (after start-up).
pub(super) const POLICY_FROM_S: f64 = 10.0;

/// Rates of the `download` flow and its pipes per variant, from
/// `POLICY_FROM_S` to the end (Figure 11's comparison).
pub(super) fn rates_extra(results: &[RunResult]) -> String {
    let mut md = format!(
        "Rates from {POLICY_FROM_S:.0} s to the end (Mbit/s of payload):\n\n| variant | aggregate | standard deviation of 1 s rates | pipe 1 (WLAN) | pipe 2 (WWAN) |\n|---|---|---|---|---|\n"
    );
    for r in results {
        let Some((fi, pts)) = download(r) else {
            continue;
        };
        let b = r.summary.duration_s;
        let pipe = |p| rate_between(&pipe_points(r, fi, p), POLICY_FROM_S, b);
        let _ = writeln!(
            md,
            "| {} | {:.2} | {:.2} | {:.2} | {:.2} |",
            r.point.text("variant").unwrap_or_default(),
            rate_between(&pts, POLICY_FROM_S, b),
            binned_sd(&pts, POLICY_FROM_S, b),
            pipe(0),
            pipe(1)
        );
    }
    md.push('\n');
    md
}

/// Sequence plots and a table per variant (Figure 8).
pub(super) fn run_sequence(
    target: &Target,
    results: &[RunResult],
    seed: u64,
    out: &Path,
) -> Result<(String, Vec<Check>), CliError> {
    let runs: Vec<(String, &RunResult)> = results
        .iter()
        .filter(|r| r.seed == seed)
        .map(|r| (r.point.text(target.x_param).unwrap_or_default(), r))
        .collect();
    let mut series = Vec::new();
    let mut md = String::new();
    heading(&mut md, target);
    let _ = writeln!(
        md,
        "**Ours.** Seed {seed} of `{}`: bytes delivered in order to the application, and by each pipe, against time.\n",
        target.path
    );
    let _ = writeln!(md, "| {} | goodput (Mbit/s) | per pipe (MB) | handoff disruption (ms) | median gap before (ms) | re-requested segments | bytes fetched twice |", target.x_param);
    let _ = writeln!(md, "|---|---|---|---|---|---|---|");
    for (v, r) in &runs {
        let Some(fi) = r.summary.flows.iter().position(|f| f.name == "download") else {
            continue;
        };
        let f = &r.summary.flows[fi];
        series.push(Series {
            label: format!("{v}: all"),
            points: r
                .series
                .iter()
                .filter(|p| p.flow == fi as u32)
                .map(|p| (p.t, p.delivered as f64 / 1e6))
                .collect(),
        });
        let mut paths: Vec<u16> = r.pipe_series.iter().map(|p| p.path).collect();
        paths.sort_unstable();
        paths.dedup();
        let mut per_pipe = Vec::new();
        for path in paths {
            let pts: Vec<(f64, f64)> = r
                .pipe_series
                .iter()
                .filter(|p| p.flow == fi as u32 && p.path == path)
                .map(|p| (p.t, p.delivered as f64 / 1e6))
                .collect();
            per_pipe.push(format!(
                "pipe {}: {:.1}",
                path + 1,
                pts.last().map_or(0.0, |p| p.1)
            ));
            series.push(Series {
                label: format!("{v}: pipe {}", path + 1),
                points: pts,
            });
        }
        let ms = |x: Option<f64>| x.map_or("—".to_string(), |v| format!("{:.1}", v * 1e3));
        let _ = writeln!(
            md,
            "| {v} | {:.3} | {} | {} | {} | {} | {} |",
            f.goodput_mbps,
            per_pipe.join(", "),
            ms(f.handoff_disruption_s),
            ms(f.pre_handoff_median_gap_s),
            f.retransmits,
            f.duplicate_bytes
        );
    }
    line_plot(
        &out.join(target.name),
        &Figure {
            title: target.title,
            x_label: target.x_label,
            y_label: "delivered in order (MB)",
            log_x: false,
            series: &series,
        },
    )?;
    let rates: Vec<Series> = series
        .iter()
        .map(|sr| Series {
            label: sr.label.clone(),
            points: binned(
                &sr.points
                    .iter()
                    .map(|&(t, mb)| (t, (mb * 1e6).round() as u64))
                    .collect::<Vec<_>>(),
            ),
        })
        .collect();
    let rate_stem = format!("{}-rate", target.name);
    line_plot(
        &out.join(&rate_stem),
        &Figure {
            title: target.title,
            x_label: target.x_label,
            y_label: "throughput, 1 s bins (Mbit/s)",
            log_x: false,
            series: &rates,
        },
    )?;
    let _ = writeln!(
        md,
        "\n![{}]({}.png)\n\n![{} (throughput)]({rate_stem}.png)\n",
        target.title, target.name, target.title
    );
    md.push_str(&(target.extra)(results));
    let named: Vec<(&str, &RunResult)> = runs.iter().map(|(v, r)| (v.as_str(), *r)).collect();
    let sc = Scenario::parse(target.path, target.scenario)?;
    let spec = sc.build(&sc.points()[0], seed)?;
    let mut checks = fig8_checks(target.name, &named, &spec);
    checks.extend((target.run_checks)(results));
    checks_and_notes(&mut md, target, &checks);
    Ok((md, checks))
}
