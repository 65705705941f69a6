//! `radial repro ablation`: what each of R²CP's rules beyond the paper is
//! worth. The engine runs with every rule on (`r2cp`), with each rule
//! switched off alone, with every rule off (the engine of `r2cp-paper`), and
//! with every rule on and flow control by span rather than by reservation
//! (the default), on the stress
//! classes of `scenarios/stress/` (their acceptance checks, and the goodput
//! of the R²CP flows) and on the league's aggregation grids
//! (`scenarios/league/`, goodput over the Ideal); `ablation.md` has a row
//! per variant and the difference each rule makes.

use std::fmt::Write as _;
use std::path::Path;

use radial_core::r2cp::{FlowControl, Rules};
use radial_sim::spec::{FlowProtocol, RunSpec};
use radial_sim::Scenario;

use crate::error::{io_err, CliError};
use crate::league::{aggregation_columns, AGGREGATION};
use crate::stress::{class_checks, CLASSES};
use crate::sweep::{run_chosen, tasks, RunResult};

/// One engine the ablation runs: its label, its rules and its flow
/// control.
struct Variant {
    label: String,
    rules: Rules,
    flow: FlowControl,
}

/// Every rule on, each off alone, every rule off; and every rule on with
/// flow control by span instead of by reservation.
fn variants() -> Vec<Variant> {
    let variant = |label: String, rules: Rules| Variant {
        label,
        rules,
        flow: FlowControl::default(),
    };
    let mut v = vec![variant("every rule (`r2cp`)".into(), Rules::ALL)];
    for rule in &Rules::LIST {
        let without = Rules::without(rule.name).expect("a listed rule");
        v.push(variant(format!("without `{}`", rule.name), without));
    }
    v.push(variant("no rule (`r2cp-paper`)".into(), Rules::PAPER));
    v.push(Variant {
        label: "every rule, flow control by span (`flow = \"span\"`)".into(),
        rules: Rules::ALL,
        flow: FlowControl::Span,
    });
    v
}

/// What one variant did.
struct Outcome {
    /// Per stress class: checks held, checks, mean goodput of its R²CP
    /// flows (Mbit/s).
    stress: Vec<(usize, usize, f64)>,
    /// Per league column: the engine's goodput over the Ideal.
    league: Vec<f64>,
}

impl Outcome {
    fn held(&self) -> usize {
        self.stress.iter().map(|s| s.0).sum()
    }

    fn league_mean(&self) -> f64 {
        self.league.iter().sum::<f64>() / self.league.len().max(1) as f64
    }
}

/// Gives every `r2cp` flow of a run (an R²CP flow with every rule on) the
/// variant's rules and flow control.
fn with_rules(rules: Rules, flow: FlowControl) -> impl Fn(&mut RunSpec) + Sync {
    move |spec: &mut RunSpec| {
        for f in &mut spec.flows {
            if let FlowProtocol::R2cp(c) = &mut f.protocol {
                if c.rules == Rules::ALL {
                    c.rules = rules;
                    c.flow = flow;
                }
            }
        }
    }
}

/// The mean goodput of a run's R²CP flows whose rules the ablation set
/// (`r2cp`, or `r2cp-paper` when every rule is off), if it has any.
fn r2cp_goodput(r: &RunResult) -> Option<f64> {
    let g: Vec<f64> = r
        .summary
        .flows
        .iter()
        .filter(|f| f.protocol == "r2cp" || f.protocol == "r2cp-paper")
        .map(|f| f.goodput_mbps)
        .collect();
    (!g.is_empty()).then(|| g.iter().sum::<f64>() / g.len() as f64)
}

/// Runs the stress classes and the league grids (`ideal` and `r2cp` only)
/// with `v`'s rules; the league's column labels are written to `labels`.
fn run_variant(v: &Variant, jobs: usize, labels: &mut Vec<String>) -> Result<Outcome, CliError> {
    let adjust = with_rules(v.rules, v.flow);
    let mut stress = Vec::new();
    for class in &CLASSES {
        let sc = Scenario::parse(class.path, class.scenario)?;
        let label = format!("{} / {}", v.label, class.name);
        let results = run_chosen(&sc, tasks(&sc), jobs, &label, &adjust)?;
        let checks = class_checks(class.name, &mut String::new(), &results);
        let goodputs: Vec<f64> = results.iter().filter_map(r2cp_goodput).collect();
        stress.push((
            checks.iter().filter(|c| c.holds).count(),
            checks.len(),
            goodputs.iter().sum::<f64>() / goodputs.len().max(1) as f64,
        ));
    }
    let mut league = Vec::new();
    labels.clear();
    for case in &AGGREGATION {
        let sc = Scenario::parse(case.path, case.scenario)?;
        let chosen = tasks(&sc)
            .into_iter()
            .filter(|(p, _)| {
                p.text("protocol")
                    .is_some_and(|name| name == "ideal" || name == "r2cp")
            })
            .collect();
        let label = format!("{} / {}", v.label, case.path);
        let results = run_chosen(&sc, chosen, jobs, &label, &adjust)?;
        for c in aggregation_columns(case, &results) {
            labels.push(c.label.clone());
            league.push(c.values.get("r2cp").copied().unwrap_or(f64::NAN));
        }
    }
    Ok(Outcome { stress, league })
}

const INTRO: &str = "# Results: what each of R²CP's rules is worth\n\n\
Written by `radial repro ablation` (into `radial-out/results/`; `--out docs/results` updates this page). R²CP's engine runs \
with every rule beyond the paper on (`r2cp`), with each switched off alone, \
and with none (`r2cp-paper`'s engine), on the stress classes of `scenarios/stress/` \
and on the aggregation grids of the league (`scenarios/league/`). The rules \
and what each does are in docs/protocols.md (R²CP); a rule is switched off \
in a scenario with `policy = { without = [\"name\"] }`. A rule that moves \
nothing here is held by the simulator's tests that fail without it, named \
in the same table. The last row keeps every rule and keeps the receive \
buffer by span (`policy = { flow = \"span\" }`: no request past the read \
point plus the buffer, as a TCP window) instead of by reservation (the \
engine's default and the papers' flow control: each request reserves its \
segment's room); docs/protocols.md says what it changes.\n\n";

/// Runs every variant and writes `ablation.md` into `out`. Returns true:
/// the ablation holds nothing to a bound, it measures.
pub fn run(out: &Path, jobs: usize) -> Result<bool, CliError> {
    let variants = variants();
    let mut labels = Vec::new();
    let mut outcomes = Vec::new();
    for v in &variants {
        outcomes.push(run_variant(v, jobs, &mut labels)?);
    }
    let mut md = INTRO.to_string();
    league_table(&mut md, &variants, &outcomes, &labels);
    stress_table(&mut md, &variants, &outcomes);
    worth(&mut md, &variants, &outcomes);
    crate::error::out_dir(out)?;
    let page = out.join("ablation.md");
    std::fs::write(&page, &md).map_err(|e| io_err(&page, e))?;
    print!("{md}");
    Ok(true)
}

fn league_table(md: &mut String, variants: &[Variant], outcomes: &[Outcome], labels: &[String]) {
    md.push_str(
        "## The league's grids\n\nGoodput over the Ideal (TCP-SACK alone on each path, \
         with the same buffer, summed), mean over each grid's points and seeds.\n\n| engine |",
    );
    for l in labels {
        let _ = write!(md, " {l} |");
    }
    md.push_str(" mean |\n|---|");
    for _ in 0..=labels.len() {
        md.push_str("---|");
    }
    md.push('\n');
    for (v, o) in variants.iter().zip(outcomes) {
        let _ = write!(md, "| {} |", v.label);
        for x in &o.league {
            let _ = write!(md, " {x:.3} |");
        }
        let _ = writeln!(md, " {:.3} |", o.league_mean());
    }
    md.push('\n');
}

fn stress_table(md: &mut String, variants: &[Variant], outcomes: &[Outcome]) {
    md.push_str(
        "## The stress classes\n\nPer class: acceptance checks held / checks \
         (docs/results/stress.md), and the mean goodput of its R²CP flows in Mbit/s.\n\n| engine |",
    );
    for c in &CLASSES {
        let _ = write!(md, " {} |", c.name);
    }
    md.push_str(" checks held |\n|---|");
    for _ in 0..=CLASSES.len() {
        md.push_str("---|");
    }
    md.push('\n');
    for (v, o) in variants.iter().zip(outcomes) {
        let _ = write!(md, "| {} |", v.label);
        for (held, n, g) in &o.stress {
            let _ = write!(md, " {held}/{n} · {g:.3} |");
        }
        let total: usize = o.stress.iter().map(|s| s.1).sum();
        let _ = writeln!(md, " {}/{total} |", o.held());
    }
    md.push('\n');
}

/// Each rule's worth: what switching it off alone costs (or gains).
fn worth(md: &mut String, variants: &[Variant], outcomes: &[Outcome]) {
    let (all, rest) = outcomes.split_first().expect("every rule on, first");
    md.push_str(
        "## Each rule's worth\n\nWhat switching the rule off alone changes: \
         checks held over all stress classes, the stress classes' R²CP goodput \
         (mean of each class's relative change), and the league's mean goodput \
         over the Ideal (points of the ratio). Negative: the rule helps.\n\n\
         | rule off | stress checks | stress goodput | league mean |\n|---|---|---|---|\n",
    );
    for (v, o) in variants[1..].iter().zip(rest) {
        let rel: Vec<f64> = o
            .stress
            .iter()
            .zip(&all.stress)
            .filter(|(_, a)| a.2 > 0.0)
            .map(|(x, a)| x.2 / a.2 - 1.0)
            .collect();
        let rel = rel.iter().sum::<f64>() / rel.len().max(1) as f64;
        let _ = writeln!(
            md,
            "| {} | {:+} | {:+.1} % | {:+.3} |",
            v.label,
            o.held() as i64 - all.held() as i64,
            100.0 * rel,
            o.league_mean() - all.league_mean()
        );
    }
    md.push('\n');
}
