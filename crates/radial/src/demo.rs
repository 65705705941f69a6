//! `radial demo`: the main job on its embedded default scenario.
//!
//! The mobile host of pTCP Figure 3 on the Figure 6 topology
//! (`scenarios/demo.toml`): five phases across WLAN-0, WLAN-1, the WWAN,
//! WLAN-2/3 with aggregation, and the WWAN again, with background TCP and
//! Pareto traffic. R²CP and pTCP (one pipe per interface) against
//! single-state TCP-SACK and RCP that hand off hard. Writes a Markdown summary, the sweep's
//! `results.csv`, a sequence-number plot and a throughput plot to the output
//! directory.

use std::fmt::Write as _;
use std::path::Path;

use radial_sim::metrics::PipePoint;
use radial_sim::Scenario;

use crate::error::CliError;
use crate::options::jobs;
use crate::plot::{line_plot_with, protocol_color, Decor, Figure, Series, Style};
use crate::run::write;
use crate::sweep::{results_csv, run_sweep};
use crate::timeseries::{binned, download, rate_between, stall_after};

/// The embedded demo scenario (also in `scenarios/demo.toml`).
pub const DEMO_SCENARIO: &str = include_str!("../../../scenarios/demo.toml");

/// The phases of pTCP §4.2 (start, end, what the host has), as the scenario
/// sets them.
const PHASES: [(f64, f64, &str); 5] = [
    (0.0, 21.0, "I: WLAN-0"),
    (21.0, 43.0, "II: lost, WLAN-1 from 24.1 s"),
    (43.0, 60.0, "III: WWAN; WLAN-1 lost at 50 s"),
    (60.0, 100.0, "IV: WLAN-2/3 + WWAN"),
    (100.0, 120.0, "V: WWAN"),
];

/// The moments the host changes interface, and what happens there.
const HANDOFFS: [(f64, &str); 4] = [
    (21.0, "21 s: WLAN-0 lost"),
    (43.0, "43 s: to the WWAN"),
    (60.0, "60 s: WLAN-2 joins"),
    (100.0, "100 s: WLAN-3 lost"),
];

/// The phases as the figures label them.
const PHASE_LABELS: [(f64, f64, &str); 5] = [
    (0.0, 21.0, "I: WLAN-0"),
    (21.0, 43.0, "II: WLAN-1"),
    (43.0, 60.0, "III: WWAN"),
    (60.0, 100.0, "IV: WLAN-2/3 + WWAN"),
    (100.0, 120.0, "V: WWAN"),
];

/// Moments the figures mark: each change of interface, WLAN-1's arrival
/// within phase II and its loss within phase III.
const MARKS: [f64; 6] = [21.0, 24.1, 43.0, 50.0, 60.0, 100.0];

/// The host's interfaces in the order of the multi-path flow's pipes.
const INTERFACES: [&str; 4] = ["WLAN-0", "WLAN-1", "WWAN", "WLAN-2/3"];

/// Each interface's colour in the pipes figure (none a protocol's colour).
const INTERFACE_COLORS: [plotters::style::RGBColor; 4] = [
    plotters::style::RGBColor(230, 140, 0),
    plotters::style::RGBColor(0, 170, 190),
    plotters::style::RGBColor(140, 90, 40),
    plotters::style::RGBColor(200, 60, 140),
];

/// How long after a handoff a stall is attributed to it.
const STALL_WATCH_S: f64 = 8.0;

pub fn demo(out: &Path, jobs_flag: Option<usize>) -> Result<(), CliError> {
    let sc = Scenario::parse("scenarios/demo.toml (embedded)", DEMO_SCENARIO)?;
    println!(
        "radial demo: pTCP Figure 3's mobile host on the Figure 6 topology, {} runs of 120 s",
        sc.points().len() * sc.seeds.len()
    );
    let results = run_sweep(&sc, jobs(jobs_flag), "demo")?;
    crate::error::out_dir(out)?;
    write(&out.join("results.csv"), &results_csv(&sc, &results))?;

    let mut md = String::new();
    let _ = writeln!(
        md,
        "# radial demo: a mobile host across WLAN, WWAN and both at once\n\n\
         pTCP Figure 3's trajectory on its Figure 6 topology (`scenarios/demo.toml`, seed {}): \
         a backlogged download from FH while the host moves WLAN-0 → WLAN-1 → WWAN → \
         WLAN-2/3 with the WWAN → WWAN, among 10 background TCP flows and 100 Pareto on/off flows. \
         `r2cp` (receiver-centric) and `ptcp` (sender-centric) open one pipe per interface as addresses come \
         and aggregate WLAN and WWAN in phase IV; `rcp` and `tcp-sack` are single-state connections that \
         move to each new address (hard handoffs).\n",
        sc.seeds[0]
    );
    let _ = writeln!(
        md,
        "Throughput per phase (Mbit/s of in-order data):\n\n| protocol | {} | whole run | timeouts |",
        PHASES.map(|p| p.2).join(" | ")
    );
    let _ = writeln!(md, "|---|{}---|---|", "---|".repeat(PHASES.len()));
    let mut sequence = Vec::new();
    let mut throughput = Vec::new();
    let mut styles = Vec::new();
    let mut pipes = Vec::new();
    let mut pipe_styles = Vec::new();
    let mut stalls = String::new();
    let mut pipes_md = String::new();
    for r in &results {
        let name = r.point.text("protocol").unwrap_or_default();
        let Some((fi, pts)) = download(r) else {
            continue;
        };
        let f = &r.summary.flows[fi as usize];
        let cells: Vec<String> = PHASES
            .iter()
            .map(|&(a, b, _)| format!("{:.2}", rate_between(&pts, a, b)))
            .collect();
        let _ = writeln!(
            md,
            "| {name} | {} | {:.2} | {} |",
            cells.join(" | "),
            f.goodput_mbps,
            f.timeouts
        );
        let cells: Vec<String> = HANDOFFS
            .iter()
            .map(|&(at, _)| format!("{:.1}", stall_after(&pts, at, STALL_WATCH_S)))
            .collect();
        let _ = writeln!(
            stalls,
            "| {name} | {} | {} |",
            cells.join(" | "),
            f.duplicate_bytes
        );
        sequence.push(Series {
            label: name.clone(),
            points: pts.iter().map(|&(t, d)| (t, d as f64 / 1e6)).collect(),
        });
        throughput.push(Series {
            label: name.clone(),
            points: binned(&pts),
        });
        styles.push(Style {
            color: protocol_color(&name),
            dashed: false,
        });
        for (path, series) in pipe_rows(&mut pipes_md, &name, fi, &r.pipe_series) {
            pipe_styles.push(Style {
                color: INTERFACE_COLORS[path % INTERFACE_COLORS.len()],
                dashed: name != "r2cp",
            });
            pipes.push(series);
        }
    }
    let _ = writeln!(
        md,
        "\nLongest stall of in-order delivery (s, at 100 ms resolution) overlapping the {STALL_WATCH_S} s after each change, \
         and bytes the host received twice:\n\n| protocol | {} | bytes fetched twice |\n|---|{}---|\n{stalls}",
        HANDOFFS.map(|h| h.1).join(" | "),
        "---|".repeat(HANDOFFS.len())
    );
    if !pipes_md.is_empty() {
        let _ = writeln!(
            md,
            "The multi-path protocols' pipes (MB each brought into the receive buffer):\n\n{pipes_md}"
        );
    }
    let _ = writeln!(
        md,
        "![Sequence progression](sequence.png)\n\n![Throughput in 1 s bins](throughput.png)\n\n\
         ![What each pipe brought](pipes.png)\n"
    );
    let _ = writeln!(
        md,
        "Files: `sequence.png`/`.svg` (bytes delivered in order to the application against time), \
         `throughput.png`/`.svg` (the same in 1 s bins), `pipes.png`/`.svg` (bytes each pipe of \
         the multi-path protocols brought into the receive buffer, in or out of order), \
         `results.csv` (one row per flow and run). Shaded bands and labels are the phases; dashed \
         lines the moments the host's interfaces change (WLAN-1 arrives at 24.1 s and is lost at 50 s).\n\
         Reproduce one run: `radial run scenarios/demo.toml --set protocol=r2cp`."
    );
    write(&out.join("summary.md"), &md)?;
    draw(
        out,
        (&sequence, &throughput, &styles),
        (&pipes, &pipe_styles),
    )?;
    print!("{md}");
    println!("wrote {}", out.display());
    Ok(())
}

/// The demo's three figures: in-order delivery and its rate per protocol
/// (`styles`), and what each pipe brought.
fn draw(
    out: &Path,
    (sequence, throughput, styles): (&[Series], &[Series], &[Style]),
    (pipes, pipe_styles): (&[Series], &[Style]),
) -> Result<(), CliError> {
    let figures = [
        (
            "sequence",
            "Sequence progression along pTCP Figure 3's trajectory",
            "bytes delivered in order to the application (MB)",
            sequence,
            styles,
        ),
        (
            "throughput",
            "Throughput of in-order delivery (1 s bins)",
            "in-order throughput (Mbit/s)",
            throughput,
            styles,
        ),
        (
            "pipes",
            "What each pipe brought (solid: r2cp, dashed: ptcp)",
            "bytes a pipe brought into the receive buffer (MB)",
            pipes,
            pipe_styles,
        ),
    ];
    for (file, title, y_label, series, styles) in figures {
        let fig = Figure {
            title,
            x_label: "time (s)",
            y_label,
            log_x: false,
            series,
        };
        let decor = Decor {
            spans: &PHASE_LABELS,
            marks: &MARKS,
            styles,
            legend_right: true,
        };
        line_plot_with(&out.join(file), &fig, &decor)?;
    }
    Ok(())
}

/// A line of `md` per pipe of a multi-path flow, and each pipe's curve
/// with its path index.
fn pipe_rows(md: &mut String, name: &str, fi: u32, pipes: &[PipePoint]) -> Vec<(usize, Series)> {
    let mut paths: Vec<u16> = pipes
        .iter()
        .filter(|p| p.flow == fi)
        .map(|p| p.path)
        .collect();
    paths.sort_unstable();
    paths.dedup();
    let mut out = Vec::new();
    for path in paths {
        let pts: Vec<(f64, f64)> = pipes
            .iter()
            .filter(|p| p.flow == fi && p.path == path)
            .map(|p| (p.t, p.delivered as f64 / 1e6))
            .collect();
        let label = INTERFACES.get(path as usize).copied().unwrap_or("pipe");
        let _ = writeln!(
            md,
            "- {name} pipe {} ({label}): {:.1} MB",
            path + 1,
            pts.last().map_or(0.0, |p| p.1)
        );
        out.push((
            path as usize,
            Series {
                label: format!("{name}: {label} pipe"),
                points: pts,
            },
        ));
    }
    out
}
