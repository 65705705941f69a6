//! The friendliness figure (RCP paper Figures 4(a)/(b), PRISM Figure
//! 15(a)/(b)): throughput and its spread over time, against the number of
//! newcomer flows (RCP, PRISM) among TCP ones.

use super::*;

/// Times (s) at which friendliness is measured: cumulative throughput since
/// each flow's start.
pub(super) const FRIENDLINESS_TIMES: [f64; 4] = [10.0, 50.0, 150.0, 300.0];

/// The newcomer's name in tables, from the x parameter (`n_rcp` → RCP).
fn newcomer(x_param: &str) -> String {
    x_param.trim_start_matches("n_").to_uppercase()
}

/// Per (x, time): mean over seeds of the flows' mean throughput and CoV, plus
/// the mean throughput of TCP and newcomer flows at the last time.
pub(super) struct Friendliness {
    /// The newcomer protocol's name (RCP, PRISM).
    name: String,
    xs: Vec<f64>,
    /// [x][time] → (mean of means, mean of CoVs).
    cells: Vec<Vec<(f64, f64)>>,
    /// [x] → (TCP flows' mean, newcomer flows' mean) at the last time.
    by_protocol: Vec<(Option<f64>, Option<f64>)>,
}

pub(super) fn friendliness(results: &[RunResult], x_param: &str) -> Friendliness {
    let mut xs: Vec<f64> = Vec::new();
    let mut acc: Vec<Vec<(f64, f64, usize)>> = Vec::new();
    let mut proto: Vec<(f64, usize, f64, usize)> = Vec::new();
    for r in results {
        let x: f64 = r
            .point
            .text(x_param)
            .and_then(|v| v.parse().ok())
            .unwrap_or(0.0);
        let xi = match xs.iter().position(|v| *v == x) {
            Some(i) => i,
            None => {
                xs.push(x);
                acc.push(vec![(0.0, 0.0, 0); FRIENDLINESS_TIMES.len()]);
                proto.push((0.0, 0, 0.0, 0));
                xs.len() - 1
            }
        };
        for (ti, &t) in FRIENDLINESS_TIMES.iter().enumerate() {
            let thr: Vec<(f64, &str)> = r
                .series
                .iter()
                .filter(|p| (p.t - t).abs() < 1e-6)
                .map(|p| {
                    let f = &r.summary.flows[p.flow as usize];
                    let dt = (t - f.start_s).max(1e-9);
                    (p.delivered as f64 * 8.0 / dt / 1e6, f.protocol.as_str())
                })
                .collect();
            if thr.is_empty() {
                continue;
            }
            let n = thr.len() as f64;
            let mean = thr.iter().map(|v| v.0).sum::<f64>() / n;
            let var = thr.iter().map(|v| (v.0 - mean).powi(2)).sum::<f64>() / n;
            let cov = if mean > 0.0 { var.sqrt() / mean } else { 0.0 };
            let a = &mut acc[xi][ti];
            *a = (a.0 + mean, a.1 + cov, a.2 + 1);
            if ti == FRIENDLINESS_TIMES.len() - 1 {
                for (v, p) in &thr {
                    let q = &mut proto[xi];
                    if !p.starts_with("tcp") {
                        q.2 += v;
                        q.3 += 1;
                    } else {
                        q.0 += v;
                        q.1 += 1;
                    }
                }
            }
        }
    }
    Friendliness {
        name: newcomer(x_param),
        cells: acc
            .iter()
            .map(|row| {
                row.iter()
                    .map(|&(m, c, n)| (m / n.max(1) as f64, c / n.max(1) as f64))
                    .collect()
            })
            .collect(),
        by_protocol: proto
            .iter()
            .map(|&(t, nt, r, nr)| {
                (
                    (nt > 0).then(|| t / nt as f64),
                    (nr > 0).then(|| r / nr as f64),
                )
            })
            .collect(),
        xs,
    }
}

/// What "minimal" re-distribution (a "flat" curve) and a CoV that does
/// not increase are held to: changes below these.
const MEAN_CHANGE: f64 = 0.05;
const COV_CHANGE: f64 = 0.05;

pub(super) fn friendliness_checks(f: &Friendliness) -> Vec<Check> {
    let Some(base) = f.xs.iter().position(|&x| x == 0.0) else {
        return vec![missing(
            format!("replacing TCP flows with {} flows changes the mean and CoV of per-flow throughput little", f.name),
            "no point without them (x = 0) to compare with",
        )];
    };
    let (mut worst_mean, mut at_mean) = (0.0_f64, (0.0, 0.0));
    let (mut worst_cov, mut at_cov) = (0.0_f64, (0.0, 0.0));
    for (xi, &x) in f.xs.iter().enumerate() {
        for (ti, &t) in FRIENDLINESS_TIMES.iter().enumerate() {
            let (m0, c0) = f.cells[base][ti];
            let (m, c) = f.cells[xi][ti];
            let dm = (m - m0).abs() / m0.max(1e-12);
            if dm > worst_mean {
                (worst_mean, at_mean) = (dm, (x, t));
            }
            if (c - c0).abs() > worst_cov {
                (worst_cov, at_cov) = ((c - c0).abs(), (x, t));
            }
        }
    }
    vec![
        Check {
            what: format!(
                "replacing TCP flows with {} flows changes the mean per-flow throughput by less than {:.0} %",
                f.name,
                MEAN_CHANGE * 100.0
            ),
            holds: worst_mean < MEAN_CHANGE,
            detail: format!(
                "largest change {:.2} % ({} {} flows, t = {} s)",
                worst_mean * 100.0,
                at_mean.0,
                f.name,
                at_mean.1
            ),
        },
        Check {
            what: format!("… and the CoV by less than {COV_CHANGE}"),
            holds: worst_cov < COV_CHANGE,
            detail: format!(
                "largest change {:.4} ({} {} flows, t = {} s)",
                worst_cov, at_cov.0, f.name, at_cov.1
            ),
        },
    ]
}

pub(super) fn friendliness_section(
    target: &Target,
    sc: &Scenario,
    f: &Friendliness,
    checks: &[Check],
) -> String {
    let mut md = String::new();
    heading(&mut md, target);
    let _ = writeln!(
        md,
        "**Ours.** Mean and CoV of the per-flow throughput (Mbit/s) at several times, averaged over {} seeds (`{}`); the last two columns split the flows by protocol at t = 300 s.\n",
        sc.seeds.len(),
        target.path
    );
    let _ = write!(md, "| {} flows |", f.name);
    for t in FRIENDLINESS_TIMES {
        let _ = write!(md, " mean @{t} s |");
    }
    for t in FRIENDLINESS_TIMES {
        let _ = write!(md, " CoV @{t} s |");
    }
    let _ = writeln!(md, " TCP flows | {} flows |", f.name);
    let _ = writeln!(
        md,
        "|---|{}",
        "---|".repeat(2 * FRIENDLINESS_TIMES.len() + 2)
    );
    for (xi, x) in f.xs.iter().enumerate() {
        let _ = write!(md, "| {x} |");
        for (m, _) in &f.cells[xi] {
            let _ = write!(md, " {m:.4} |");
        }
        for (_, c) in &f.cells[xi] {
            let _ = write!(md, " {c:.4} |");
        }
        let cell = |v: Option<f64>| v.map_or("—".to_string(), |v| format!("{v:.4}"));
        let (t, r) = f.by_protocol[xi];
        let _ = writeln!(md, " {} | {} |", cell(t), cell(r));
    }
    let _ = writeln!(
        md,
        "\n![mean]({}-mean.png) ![CoV]({}-cov.png)\n",
        target.name, target.name
    );
    checks_and_notes(&mut md, target, checks);
    md
}

pub(super) fn run_friendliness(
    target: &Target,
    sc: &Scenario,
    results: &[RunResult],
    out: &Path,
) -> Result<(String, Vec<Check>), CliError> {
    let f = friendliness(results, target.x_param);
    let checks = friendliness_checks(&f);
    for (suffix, y_label, pick) in [
        ("mean", "mean per-flow throughput (Mbit/s)", 0usize),
        ("cov", "CoV of per-flow throughput", 1),
    ] {
        let series: Vec<Series> = FRIENDLINESS_TIMES
            .iter()
            .enumerate()
            .map(|(ti, t)| Series {
                label: format!("t = {t} s"),
                points: f
                    .xs
                    .iter()
                    .enumerate()
                    .map(|(xi, &x)| {
                        let (m, c) = f.cells[xi][ti];
                        (x, if pick == 0 { m } else { c })
                    })
                    .collect(),
            })
            .collect();
        line_plot(
            &out.join(format!("{}-{suffix}", target.name)),
            &Figure {
                title: target.title,
                x_label: target.x_label,
                y_label,
                log_x: false,
                series: &series,
            },
        )?;
    }
    Ok((friendliness_section(target, sc, &f, &checks), checks))
}
