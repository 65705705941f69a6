//! `radial demo`: the main job on its embedded default scenario.
//!
//! For now the S1 setup (SCENARIOS.md part 1): TCP-SACK, TCP-NewReno,
//! TCP-ELN, RCP and RCP-ELN over a 2 Mbit/s last hop with random loss in both
//! directions, 10 seeds per point. Writes a Markdown summary, results.csv and a
//! goodput-versus-loss plot to the output directory.

use std::fmt::Write as _;
use std::path::Path;

use radial_sim::Scenario;

use crate::cli::{io_err, jobs, CliError};
use crate::plot::{line_plot, Figure, Series};
use crate::run::write;
use crate::sweep::{means, results_csv, run_sweep};

/// The embedded demo scenario (also in `scenarios/demo.toml`).
pub const DEMO_SCENARIO: &str = include_str!("../../../scenarios/demo.toml");

pub fn demo(out: &Path, jobs_flag: Option<usize>) -> Result<(), CliError> {
    let sc = Scenario::parse("scenarios/demo.toml (embedded)", DEMO_SCENARIO)?;
    let protocols: Vec<String> = sc
        .params
        .iter()
        .find(|(n, _)| n == "protocol")
        .map(|(_, v)| {
            v.iter()
                .filter_map(|p| p.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    println!(
        "radial demo: {} runs ({} protocols x {} loss rates x {} seeds, 300 s simulated each)",
        sc.points().len() * sc.seeds.len(),
        protocols.len(),
        sc.points().len() / protocols.len().max(1),
        sc.seeds.len()
    );
    let results = run_sweep(&sc, jobs(jobs_flag), "demo")?;
    std::fs::create_dir_all(out).map_err(|e| io_err(out, e))?;
    write(&out.join("results.csv"), &results_csv(&sc, &results))?;

    let rows = means(&results);
    let mut losses: Vec<f64> = Vec::new();
    for (p, _, _, _, _) in &rows {
        let l: f64 = p.text("loss").and_then(|t| t.parse().ok()).unwrap_or(0.0);
        if !losses.contains(&l) {
            losses.push(l);
        }
    }
    let mean_of = |proto: &str, loss: f64| {
        rows.iter()
            .find(|(p, pr, ..)| {
                pr == proto && p.text("loss").and_then(|t| t.parse::<f64>().ok()) == Some(loss)
            })
            .map(|(_, _, m, sd, n)| (*m, *sd, *n))
    };
    let mut md = String::new();
    let _ = writeln!(
        md,
        "# radial demo: TCP and RCP over a lossy wireless last hop\n"
    );
    let _ = writeln!(
        md,
        "S1 setup (SCENARIOS.md part 1): S -(10 Mbit/s, 20 ms)- AP -(2 Mbit/s, 15 ms)- MH, \
         independent loss on AP-MH in both directions, one backlogged flow, 300 s, \
         {} seeds per point. Goodput in Mbit/s, mean ± standard deviation over seeds.\n",
        sc.seeds.len()
    );
    let _ = writeln!(md, "| loss | {} |", protocols.join(" | "));
    let _ = writeln!(md, "|---|{}", "---|".repeat(protocols.len()));
    for &l in &losses {
        let cells: Vec<String> = protocols
            .iter()
            .map(|p| mean_of(p, l).map_or("—".into(), |(m, sd, _)| format!("{m:.3} ± {sd:.3}")))
            .collect();
        let _ = writeln!(md, "| {l} | {} |", cells.join(" | "));
    }
    let _ = writeln!(
        md,
        "\nFiles: `results.csv` (one row per run), `goodput-vs-loss.png` / `.svg`.\n\
         Reproduce: `radial sweep scenarios/demo.toml --out DIR`."
    );
    write(&out.join("summary.md"), &md)?;

    let series: Vec<Series> = protocols
        .iter()
        .map(|p| Series {
            label: p.clone(),
            points: losses
                .iter()
                .filter(|&&l| l > 0.0)
                .filter_map(|&l| mean_of(p, l).map(|(m, ..)| (l * 100.0, m)))
                .collect(),
        })
        .collect();
    line_plot(
        &out.join("goodput-vs-loss"),
        &Figure {
            title: "Goodput vs. packet loss on a 2 Mbit/s wireless hop (S1)",
            x_label: "packet loss rate, both directions (%)",
            y_label: "goodput (Mbit/s)",
            log_x: true,
            series: &series,
        },
    )?;
    print!("{md}");
    println!("wrote {}", out.display());
    Ok(())
}
