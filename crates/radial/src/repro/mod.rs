//! `radial repro`: re-creates a figure of the papers — runs its scenario
//! sweep, plots it, and writes a Markdown table beside the paper's claim, with
//! the acceptance checks we hold it to, evaluated on our numbers.
//!
//! Each target's section is written between markers in `<out>/<group>.md`
//! (for example `docs/results/rcp.md`), so re-running one target updates its
//! section only.

use std::fmt::Write as _;
use std::path::Path;

use radial_sim::Scenario;

use crate::error::CliError;
use crate::options::jobs;
use crate::plot::{line_plot, Figure, Series};
use crate::run::write;
use crate::sweep::{run_sweep, RunResult};
use crate::timeseries::{binned, binned_sd, download, pipe_points, rate_between, share_near};

mod checks;
mod fig8;
mod friendliness;
mod ledger;
mod mobility;
mod prism;
mod ptcp;
mod sequence;
mod targets;

use checks::*;
use fig8::*;
use friendliness::*;
use mobility::*;
use prism::*;
use ptcp::*;
use sequence::*;
use targets::*;

/// Mean per-flow goodput of the reliable flows of each run, by (series, x).
pub struct Table {
    /// Series names in sweep order.
    pub series: Vec<String>,
    /// X values in sweep order.
    pub xs: Vec<f64>,
    /// (series index, x index) → per-run values.
    cells: Vec<Vec<Vec<f64>>>,
}

impl Table {
    fn from_results(
        results: &[RunResult],
        series_param: &str,
        x_param: &str,
        metric: impl Fn(&RunResult) -> Option<f64>,
    ) -> Self {
        Table::from_results_by(results, &[series_param], x_param, metric)
    }

    /// As [`Table::from_results`], one series per combination of the
    /// `series` parameters (labelled `value, name value, ...`).
    fn from_results_by(
        results: &[RunResult],
        series: &[&str],
        x_param: &str,
        metric: impl Fn(&RunResult) -> Option<f64>,
    ) -> Self {
        let mut t = Table {
            series: Vec::new(),
            xs: Vec::new(),
            cells: Vec::new(),
        };
        for r in results {
            let s = series
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    let v = r.point.text(p).unwrap_or_default();
                    if i == 0 {
                        v
                    } else {
                        format!("{p} {v}")
                    }
                })
                .collect::<Vec<_>>()
                .join(", ");
            let x: f64 = r
                .point
                .text(x_param)
                .and_then(|v| v.parse().ok())
                .unwrap_or(0.0);
            let si = match t.series.iter().position(|v| *v == s) {
                Some(i) => i,
                None => {
                    t.series.push(s);
                    t.cells.push(Vec::new());
                    t.series.len() - 1
                }
            };
            let xi = match t.xs.iter().position(|v| *v == x) {
                Some(i) => i,
                None => {
                    t.xs.push(x);
                    t.xs.len() - 1
                }
            };
            for row in &mut t.cells {
                row.resize(t.xs.len(), Vec::new());
            }
            if let Some(v) = metric(r) {
                t.cells[si][xi].push(v);
            }
        }
        t
    }

    /// One plot curve of means per series, x values scaled by `x_scale`.
    fn curves(&self, x_scale: f64) -> Vec<Series> {
        self.series
            .iter()
            .map(|s| Series {
                label: s.clone(),
                points: (0..self.xs.len())
                    .filter_map(|xi| self.stat(s, xi).map(|(m, _)| (self.xs[xi] * x_scale, m)))
                    .collect(),
            })
            .collect()
    }

    /// Mean and 95 % confidence half-width of series `s` at x index `xi`.
    pub fn stat(&self, s: &str, xi: usize) -> Option<(f64, f64)> {
        let si = self.series.iter().position(|v| v == s)?;
        let v = self.cells.get(si)?.get(xi)?;
        if v.is_empty() {
            return None;
        }
        let n = v.len() as f64;
        let mean = v.iter().sum::<f64>() / n;
        let sd = if v.len() > 1 {
            (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
        } else {
            0.0
        };
        Some((mean, t95(v.len()) * sd / n.sqrt()))
    }
}

/// Mean goodput of a run's reliable (non-UDP) flows.
fn flow_goodput(r: &RunResult) -> Option<f64> {
    let g: Vec<f64> = r
        .summary
        .flows
        .iter()
        .filter(|f| f.protocol != "udp")
        .map(|f| f.goodput_mbps)
        .collect();
    (!g.is_empty()).then(|| g.iter().sum::<f64>() / g.len() as f64)
}

/// The report of the flow called `name`.
fn named_flow<'a>(r: &'a RunResult, name: &str) -> Option<&'a radial_sim::metrics::FlowReport> {
    r.summary.flows.iter().find(|f| f.name == name)
}

/// Which flows a target's goodput is the mean of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measured {
    /// Every reliable flow.
    AllReliable,
    /// One flow, by name; the others are background.
    Flow(&'static str),
    /// The sum over the reliable flows (an aggregate, or the Ideal of
    /// separate flows on disjoint paths).
    SumReliable,
    /// The completion time of one finite flow, by name, in seconds.
    CompletionTime(&'static str),
    /// How long one flow, by name, took to deliver again after its link's
    /// returns (the mean over its handoffs), in seconds.
    Resume(&'static str),
    /// Jain's fairness index of the reliable flows' average congestion
    /// windows.
    CwndFairness,
}

impl Measured {
    fn goodput(self, r: &RunResult) -> Option<f64> {
        match self {
            Measured::AllReliable => flow_goodput(r),
            Measured::Flow(name) => named_flow(r, name).map(|f| f.goodput_mbps),
            Measured::SumReliable => Some(
                r.summary
                    .flows
                    .iter()
                    .filter(|f| f.protocol != "udp")
                    .map(|f| f.goodput_mbps)
                    .sum(),
            ),
            Measured::CompletionTime(name) => named_flow(r, name).and_then(|f| f.completion_time_s),
            Measured::Resume(name) => {
                let v = &named_flow(r, name)?.handoff_resume_s;
                (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
            }
            Measured::CwndFairness => {
                let w: Option<Vec<f64>> = r
                    .summary
                    .flows
                    .iter()
                    .filter(|f| f.protocol != "udp")
                    .map(|f| f.mean_cwnd_bytes)
                    .collect();
                jain(&w?)
            }
        }
    }

    fn y_label(self) -> &'static str {
        match self {
            Measured::CompletionTime(_) => "completion time (s)",
            Measured::Resume(_) => "time to deliver again after the link returns (s)",
            Measured::CwndFairness => "Jain's index of the average windows",
            _ => "goodput per flow (Mbit/s)",
        }
    }
}

/// Jain's fairness index of `x`: (Σx)² / (n Σx²), 1 when all are equal;
/// none for no values or all zero.
fn jain(x: &[f64]) -> Option<f64> {
    let (s, s2) = x.iter().fold((0.0, 0.0), |(s, s2), v| (s + v, s2 + v * v));
    (s2 > 0.0).then(|| s * s / (x.len() as f64 * s2))
}

/// Joules per delivered megabyte at the (first) node that models energy.
fn energy_per_mb(r: &RunResult) -> Option<f64> {
    r.summary.nodes.first().and_then(|n| n.energy_per_mb_j)
}

/// Two-sided 95 % Student t quantile for `n` samples.
fn t95(n: usize) -> f64 {
    const T: [f64; 10] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    ];
    match n {
        0 | 1 => 0.0,
        n if n - 2 < T.len() => T[n - 2],
        _ => 1.96,
    }
}

/// One acceptance check, evaluated.
#[derive(Debug)]
pub struct Check {
    /// What is checked.
    pub what: String,
    /// Whether our numbers satisfy it.
    pub holds: bool,
    /// The numbers behind the verdict.
    pub detail: String,
}

/// A reproducible figure.
#[derive(Clone, Copy)]
pub struct Target {
    /// `rcp-fig5a`.
    pub name: &'static str,
    /// Results page group (`rcp` → `rcp.md`).
    pub group: &'static str,
    /// Figure title.
    pub title: &'static str,
    /// The scenario, embedded.
    pub scenario: &'static str,
    /// Scenario path in the repository (for the reproduce line).
    pub path: &'static str,
    /// The paper's claim, quoted or summarised with its section.
    pub claim: &'static str,
    /// Parameter on the x axis.
    pub x_param: &'static str,
    /// X-axis label.
    pub x_label: &'static str,
    /// Scale applied to x values for display (e.g. 100 for percent).
    pub x_scale: f64,
    /// Logarithmic x axis.
    pub log_x: bool,
    /// The acceptance checks the figure is held to.
    pub checks: fn(&Table) -> Vec<Check>,
    /// Notes on where our setup or numbers differ, and why.
    pub notes: &'static str,
    /// What is computed from the runs.
    pub kind: Kind,
    /// Whose goodput the figure shows.
    pub measured: Measured,
    /// Further tables under the main one (the costs behind the numbers).
    pub extra: fn(&[RunResult]) -> String,
    /// The parameters whose values name a curve (`protocol`, or more).
    pub series: &'static [&'static str],
    /// Acceptance checks that need the runs themselves, not only the
    /// measured table (another flow's goodput, a per-handoff figure).
    pub run_checks: fn(&[RunResult]) -> Vec<Check>,
}

/// How a target turns runs into a figure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Mean per-flow goodput against `x_param`, one curve per protocol.
    Curves,
    /// Mean and CoV of per-flow throughput at several times, against
    /// `x_param` (the number of RCP flows among 20).
    Friendliness,
    /// Energy per delivered megabyte and goodput against `x_param`, one
    /// curve per protocol.
    Energy,
    /// Sequence plots (bytes delivered against time) of the flow
    /// `download`, in total and per pipe, one set per value of `x_param`.
    Sequence,
}

/// What the measured flow's goodput cost: its retransmissions per delivered
/// segment and timeouts, and the goodput left to the backlogged reverse flow.
fn fig5b_costs(results: &[RunResult]) -> String {
    fn measured(r: &RunResult) -> Option<&radial_sim::metrics::FlowReport> {
        named_flow(r, "measured")
    }
    let tables = [
        (
            "Retransmitted segments per delivered segment of the measured flow",
            Table::from_results(results, "protocol", "delay_ms", |r| {
                measured(r)
                    .map(|f| f.retransmits as f64 / (f.bytes_delivered as f64 / 1000.0).max(1.0))
            }),
        ),
        (
            "Retransmission timeouts of the measured flow",
            Table::from_results(results, "protocol", "delay_ms", |r| {
                measured(r).map(|f| f.timeouts as f64)
            }),
        ),
        (
            "Goodput of the backlogged reverse TCP flow (Mbit/s)",
            Table::from_results(results, "protocol", "delay_ms", |r| {
                named_flow(r, "reverse").map(|f| f.goodput_mbps)
            }),
        ),
    ];
    let mut md = String::new();
    for (title, t) in &tables {
        let _ = writeln!(md, "{title}:\n");
        table_markdown(&mut md, t, "delay_ms", 1.0);
        let _ = writeln!(md);
    }
    md
}

/// Figure 9(c): the share of arrivals that find the receive buffer at least
/// 75 % full, and the efficiency table.
fn fig9_extra(results: &[RunResult], x_param: &str) -> String {
    let share = Table::from_results(results, "protocol", x_param, |r| {
        named_flow(r, "aggregate").and_then(|f| f.buffer_75_share)
    });
    let goodput = Table::from_results(results, "protocol", x_param, |r| {
        Measured::SumReliable.goodput(r)
    });
    let mut md = String::new();
    let _ = writeln!(md, "Efficiency, goodput / Ideal:\n");
    let schemes: Vec<&str> = goodput
        .series
        .iter()
        .map(String::as_str)
        .filter(|s| *s != "ideal")
        .collect();
    let _ = writeln!(md, "| {x_param} | {} |", schemes.join(" | "));
    let _ = writeln!(md, "|---|{}", "---|".repeat(schemes.len()));
    let eff: Vec<Vec<(f64, f64)>> = schemes.iter().map(|s| efficiency(&goodput, s)).collect();
    for (i, (x, _)) in eff[0].iter().enumerate() {
        let cells: Vec<String> = eff
            .iter()
            .map(|e| {
                e.get(i)
                    .map_or("—".into(), |(_, v)| format!("{:.1} %", v * 100.0))
            })
            .collect();
        let _ = writeln!(md, "| {x} | {} |", cells.join(" | "));
    }
    let _ = writeln!(
        md,
        "\nShare of data arrivals that found the receive buffer at least 75 % full (Figure 9(c)):\n"
    );
    table_markdown(&mut md, &share, x_param, 1.0);
    let _ = writeln!(md);
    md
}

fn section(
    target: &Target,
    sc: &Scenario,
    duration_s: f64,
    table: &Table,
    checks: &[Check],
    extra: &str,
) -> String {
    let mut md = String::new();
    heading(&mut md, target);
    let _ = writeln!(
        md,
        "**Ours.** {} ± 95 % confidence half-width over {} seeds, {duration_s} s each (`{}`).\n",
        match target.measured {
            Measured::AllReliable => "Mean per-flow goodput in Mbit/s".to_string(),
            Measured::Flow(name) => format!("Goodput of the flow `{name}` in Mbit/s"),
            Measured::SumReliable => "Aggregate goodput in Mbit/s (for `ideal`: the sum of single-path flows alone on each path at once, as the scenario file describes)".to_string(),
            Measured::CompletionTime(name) => format!("Completion time of the flow `{name}` in s"),
            Measured::Resume(name) => format!("Time the flow `{name}` took to deliver again after its link returned, in s"),
            Measured::CwndFairness => "Jain's fairness index of the flows' average congestion windows".to_string(),
        },
        sc.seeds.len(),
        target.path
    );
    table_markdown(&mut md, table, target.x_label, target.x_scale);
    let _ = writeln!(md, "\n![{}]({}.png)\n", target.title, target.name);
    md.push_str(extra);
    checks_and_notes(&mut md, target, checks);
    md
}

/// A section's title and the paper's claim.
fn heading(md: &mut String, target: &Target) {
    let _ = writeln!(md, "## {}\n", target.title);
    let _ = writeln!(md, "**Paper.** {}\n", target.claim);
}

/// A table of `table`'s means ± 95 % half-widths, one row per x value,
/// each x times `x_scale` (as the figure's axis shows it), headed `x_label`.
/// A series the same in every seed shows its value alone.
fn table_markdown(md: &mut String, table: &Table, x_label: &str, x_scale: f64) {
    let _ = write!(md, "| {x_label} |");
    for s in &table.series {
        let _ = write!(md, " {s} |");
    }
    let _ = writeln!(md);
    let _ = writeln!(md, "|---|{}", "---|".repeat(table.series.len()));
    for (xi, x) in table.xs.iter().enumerate() {
        let _ = write!(md, "| {} |", crate::plot::number(x * x_scale));
        for s in &table.series {
            match table.stat(s, xi) {
                Some((m, c)) => {
                    let _ = write!(md, " {} |", mean_and_width(m, c, 4));
                }
                None => {
                    let _ = write!(md, " — |");
                }
            }
        }
        let _ = writeln!(md);
    }
}

/// The acceptance checks, the notes and the command, closing a section.
fn checks_and_notes(md: &mut String, target: &Target, checks: &[Check]) {
    let _ = writeln!(md, "**Acceptance.**\n");
    for c in checks {
        let verdict = if c.holds { "holds" } else { "does not hold" };
        let _ = writeln!(md, "- {} — **{verdict}** ({})", c.what, c.detail);
    }
    let _ = writeln!(md, "\n**Notes.** {}\n", target.notes);
    let _ = writeln!(
        md,
        "Reproduce: `radial repro {}` (writes `radial-out/results/`; `--out docs/results` updates this page).",
        target.name
    );
}

/// Replaces (or appends) the section between this target's markers.
fn splice(doc: &str, name: &str, body: &str) -> String {
    let start = format!("<!-- repro:{name}:start -->");
    let end = format!("<!-- repro:{name}:end -->");
    let block = format!("{start}\n{body}{end}");
    match (doc.find(&start), doc.find(&end)) {
        (Some(a), Some(b)) if b > a => format!("{}{}{}", &doc[..a], block, &doc[b + end.len()..]),
        _ => format!("{}\n{}\n", doc.trim_end(), block),
    }
}

fn run_energy(
    target: &Target,
    sc: &Scenario,
    goodput: &Table,
    energy: &Table,
    out: &Path,
) -> Result<(String, Vec<Check>), CliError> {
    let checks = fig5c_checks(goodput, energy);
    for (suffix, y_label, t) in [
        (
            "energy",
            "energy per delivered MB at the mobile host (J)",
            energy,
        ),
        ("goodput", "goodput (Mbit/s)", goodput),
    ] {
        let series = t.curves(target.x_scale);
        line_plot(
            &out.join(format!("{}-{suffix}", target.name)),
            &Figure {
                title: target.title,
                x_label: target.x_label,
                y_label,
                log_x: target.log_x,
                series: &series,
            },
        )?;
    }
    let mut md = String::new();
    heading(&mut md, target);
    let _ = writeln!(
        md,
        "**Ours.** Energy per delivered megabyte at the mobile host (J) and goodput (Mbit/s), mean ± 95 % confidence half-width over {} seeds, 300 s each (`{}`).\n",
        sc.seeds.len(),
        target.path
    );
    let _ = write!(md, "| {} |", target.x_param);
    for s in &energy.series {
        let _ = write!(md, " {s} J/MB | {s} Mbit/s |");
    }
    let _ = writeln!(md);
    let _ = writeln!(md, "|---|{}", "---|".repeat(2 * energy.series.len()));
    for (xi, x) in energy.xs.iter().enumerate() {
        let _ = write!(md, "| {x} |");
        for s in &energy.series {
            let cell = |t: &Table, p: usize| {
                t.stat(s, xi)
                    .map_or("—".to_string(), |(m, c)| mean_and_width(m, c, p))
            };
            let _ = write!(md, " {} | {} |", cell(energy, 2), cell(goodput, 4));
        }
        let _ = writeln!(md);
    }
    let _ = writeln!(
        md,
        "\n![energy]({}-energy.png) ![goodput]({}-goodput.png)\n",
        target.name, target.name
    );
    checks_and_notes(&mut md, target, &checks);
    Ok((md, checks))
}

/// Runs one figure: writes its plots and its section of the group page,
/// records its checks in the ledger's record, and says whether every
/// check holds.
fn run_target(target: &Target, out: &Path, jobs_n: usize) -> Result<bool, CliError> {
    let sc = Scenario::parse(target.path, target.scenario)?;
    let results = run_sweep(&sc, jobs_n, target.name)?;
    crate::error::out_dir(out)?;
    let (body, checks) = match target.kind {
        Kind::Sequence => run_sequence(target, &results, sc.seeds[0], out)?,
        Kind::Friendliness => run_friendliness(target, &sc, &results, out)?,
        Kind::Energy | Kind::Curves => {
            let table = Table::from_results_by(&results, target.series, target.x_param, |r| {
                target.measured.goodput(r)
            });
            if target.kind == Kind::Energy {
                let energy =
                    Table::from_results(&results, "protocol", target.x_param, energy_per_mb);
                run_energy(target, &sc, &table, &energy, out)?
            } else {
                run_curves(target, &sc, &results, &table, out)?
            }
        }
    };
    publish(target, out, &body)?;
    ledger::record(out, target.name, &checks)?;
    Ok(!checks.is_empty() && checks.iter().all(|c| c.holds))
}

/// A curve figure: its plot, and its section with the goodput table.
fn run_curves(
    target: &Target,
    sc: &Scenario,
    results: &[RunResult],
    table: &Table,
    out: &Path,
) -> Result<(String, Vec<Check>), CliError> {
    let mut checks = (target.checks)(table);
    checks.extend((target.run_checks)(results));
    let series = table.curves(target.x_scale);
    line_plot(
        &out.join(target.name),
        &Figure {
            title: target.title,
            x_label: target.x_label,
            y_label: target.measured.y_label(),
            log_x: target.log_x,
            series: &series,
        },
    )?;
    let duration_s = results.first().map_or(0.0, |r| r.summary.duration_s);
    let body = section(
        target,
        sc,
        duration_s,
        table,
        &checks,
        &(target.extra)(results),
    );
    Ok((body, checks))
}

/// Writes the target's section into its group page and prints it.
fn publish(target: &Target, out: &Path, body: &str) -> Result<(), CliError> {
    let page = out.join(format!("{}.md", target.group));
    let doc = std::fs::read_to_string(&page).unwrap_or_else(|_| {
        format!(
            "# Results: {}\n\nEach section below is written by `radial repro`; the command is under each table.\n",
            target.group
        )
    });
    write(&page, &splice(&doc, target.name, body))?;
    print!("{body}");
    Ok(())
}

pub fn repro(which: &str, out: &Path, jobs_flag: Option<usize>) -> Result<(), CliError> {
    let known: Vec<&str> = targets().iter().map(|t| t.name).collect();
    if which == "ledger" {
        return ledger::run(out, &known);
    }
    if which == "stress" || which == "league" || which == "ablation" {
        let holds = match which {
            "stress" => crate::stress::run(out, jobs(jobs_flag))?,
            "league" => crate::league::run(out, jobs(jobs_flag))?,
            _ => crate::ablation::run(out, jobs(jobs_flag))?,
        };
        if !holds {
            return Err(CliError::ChecksFail(format!(
                "some acceptance checks do not hold; see {which}.md (exit status 3)"
            )));
        }
        return Ok(());
    }
    let selected: Vec<&Target> = if which == "all" {
        targets().iter().collect()
    } else if let Some((_, members)) = GROUPS.iter().find(|(name, _)| *name == which) {
        targets()
            .iter()
            .filter(|t| members.contains(&t.name))
            .collect()
    } else {
        match targets().iter().find(|t| t.name == which) {
            Some(t) => vec![t],
            None => {
                let names: Vec<&str> = targets()
                    .iter()
                    .map(|t| t.name)
                    .chain(GROUPS.iter().map(|g| g.0))
                    .collect();
                return Err(CliError::Input(format!(
                    "unknown figure `{which}` (known: {}, all, stress, league, ablation, ledger)",
                    names.join(", ")
                )));
            }
        }
    };
    let mut all_hold = true;
    for t in selected {
        all_hold &= run_target(t, out, jobs(jobs_flag))?;
    }
    // The ledger and the pages' verdicts follow every figure run.
    ledger::run(out, &known)?;
    if !all_hold {
        return Err(CliError::ChecksFail(
            "some acceptance checks do not hold; see the sections written above (exit status 3)"
                .into(),
        ));
    }
    Ok(())
}

/// `radial repro --help`'s list: every figure by results page, the groups,
/// and examples.
pub fn figure_help() -> String {
    let mut by_page: Vec<(&str, Vec<&str>)> = Vec::new();
    for t in targets() {
        match by_page.iter_mut().find(|(g, _)| *g == t.group) {
            Some((_, names)) => names.push(t.name),
            None => by_page.push((t.group, vec![t.name])),
        }
    }
    let mut s = String::from("Figures, by the page they write (OUT/<page>.md):\n");
    for (page, names) in &by_page {
        let _ = writeln!(s, "  {page}: {}", names.join(", "));
    }
    let groups: Vec<&str> = GROUPS.iter().map(|g| g.0).collect();
    let _ = write!(
        s,
        "Groups: {}, all.\nAlso: stress, league, ablation, and ledger (every figure and table of the papers,\n\
         with the verdicts the figures recorded when they ran).\n\n\
         Examples:\n  radial repro rcp-fig5a\n  radial repro league --jobs 2\n  \
         radial repro all --out docs/results",
        groups.join(", ")
    );
    s
}

/// `mean ± half-width` to `p` places, or the mean alone with "(every
/// seed)" when the seeds do not differ (a deterministic outcome).
fn mean_and_width(m: f64, c: f64, p: usize) -> String {
    if c == 0.0 {
        format!("{m:.p$} (every seed)")
    } else {
        format!("{m:.p$} ± {c:.p$}")
    }
}
