//! The ledger: every figure and table of the five papers, as data
//! (`scenarios/papers/ledger.toml`), with the verdict of each reproduced
//! one read from the checks its figures recorded when they ran
//! (`checks.json` beside the pages). `radial repro ledger` writes
//! `ledger.md`; `radial repro all` writes it after the figures.
//!
//! A reproduced row holds only when every figure it names has run and
//! recorded at least one check, and every check holds: a figure not run,
//! or one that recorded no check, is a failure, never a pass.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::Check;
use crate::error::{io_err, CliError};
use crate::run::write;

/// Where the ledger's rows live, and their text.
pub(super) const PATH: &str = "scenarios/papers/ledger.toml";
const TEXT: &str = include_str!("../../../../scenarios/papers/ledger.toml");

/// The record of every figure's checks, beside the pages.
const RECORD: &str = "checks.json";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Ledger {
    pub(super) paper: Vec<Paper>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Paper {
    key: String,
    title: String,
    page: String,
    pub(super) row: Vec<Row>,
}

/// One figure or table of a paper.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Row {
    item: String,
    about: String,
    /// The paper's numbers, as it states them.
    claim: Option<String>,
    /// The figures that reproduce it.
    #[serde(default)]
    pub(super) targets: Vec<String>,
    /// `illustration`, `setup` or `missing` when no figure reproduces it.
    kind: Option<String>,
    /// Where an illustration is implemented, or a setup used.
    #[serde(rename = "where")]
    place: Option<String>,
    /// Why a result is missing.
    why: Option<String>,
}

/// A check as recorded.
#[derive(Debug, Deserialize, Serialize, PartialEq)]
struct Recorded {
    what: String,
    holds: bool,
    detail: String,
}

type Record = BTreeMap<String, Vec<Recorded>>;

/// What a row comes to.
#[derive(Debug, PartialEq)]
enum Verdict {
    /// Every check of its figures holds (how many).
    Holds(usize),
    /// Some do not: (how many hold, of how many).
    Fails(usize, usize),
    /// A figure has not been run, or recorded no check.
    NoData(String),
    /// No numbers to reproduce.
    Illustration,
    /// A scenario takes its values from it.
    Setup,
    /// A result not reproduced.
    Missing,
}

/// The ledger's rows, checked: each row is reproduced by known figures or
/// says what it is instead, and every figure is on some row.
pub(super) fn load(known: &[&str]) -> Result<Ledger, String> {
    let ledger: Ledger = toml::from_str(TEXT).map_err(|e| format!("{PATH}: {e}"))?;
    for p in &ledger.paper {
        for r in &p.row {
            let at = format!("{PATH}: {} {}", p.key, r.item);
            match (r.targets.is_empty(), r.kind.as_deref()) {
                (false, None) => {
                    if let Some(t) = r.targets.iter().find(|t| !known.contains(&t.as_str())) {
                        return Err(format!("{at}: unknown figure `{t}`"));
                    }
                }
                (true, Some("illustration" | "setup")) if r.place.is_some() => {}
                (true, Some("missing")) if r.why.is_some() => {}
                _ => {
                    return Err(format!(
                        "{at}: a row names its `targets`, or is an `illustration` or `setup` with `where`, or `missing` with `why`"
                    ))
                }
            }
        }
    }
    if let Some(t) = known.iter().find(|t| {
        !ledger
            .paper
            .iter()
            .flat_map(|p| &p.row)
            .any(|r| r.targets.iter().any(|x| x == *t))
    }) {
        return Err(format!("{PATH}: figure `{t}` is on no row"));
    }
    Ok(ledger)
}

fn read_record(out: &Path) -> Result<Record, CliError> {
    let path = out.join(RECORD);
    match std::fs::read_to_string(&path) {
        Ok(text) => serde_json::from_str(&text).map_err(|e| {
            CliError::Input(format!(
                "{}: {e} (delete it and run the figures again)",
                path.display()
            ))
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Record::new()),
        Err(e) => Err(io_err(&path, e)),
    }
}

/// Records `target`'s checks in `out/checks.json`, replacing what it
/// recorded before.
pub(super) fn record(out: &Path, target: &str, checks: &[Check]) -> Result<(), CliError> {
    let mut rec = read_record(out)?;
    rec.insert(
        target.to_string(),
        checks
            .iter()
            .map(|c| Recorded {
                what: c.what.clone(),
                holds: c.holds,
                detail: c.detail.clone(),
            })
            .collect(),
    );
    let mut text = serde_json::to_string_pretty(&rec).expect("a record serialises");
    text.push('\n');
    write(&out.join(RECORD), &text)
}

fn verdict(row: &Row, rec: &Record) -> Verdict {
    match row.kind.as_deref() {
        Some("illustration") => return Verdict::Illustration,
        Some("setup") => return Verdict::Setup,
        Some(_) => return Verdict::Missing,
        None => {}
    }
    let (mut holding, mut all) = (0, 0);
    for t in &row.targets {
        match rec.get(t) {
            None => return Verdict::NoData(format!("`{t}` has not been run")),
            Some(c) if c.is_empty() => return Verdict::NoData(format!("`{t}` recorded no check")),
            Some(c) => {
                all += c.len();
                holding += c.iter().filter(|c| c.holds).count();
            }
        }
    }
    if holding == all {
        Verdict::Holds(all)
    } else {
        Verdict::Fails(holding, all)
    }
}

/// The ledger's page, from the rows and the record.
fn page(ledger: &Ledger, rec: &Record) -> String {
    let mut md = String::from(
        "# Ledger: every figure and table of the five papers\n\n\
         Each row is a figure or table of a paper, in the paper's order. A reproduced row \
         holds when every check of the figures that reproduce it holds; a figure that has \
         not run, or recorded no check, counts as failing. Illustrations (diagrams, formats, \
         algorithms) have no numbers to reproduce; setups are the topologies, traces and \
         parameter tables the scenarios take their values from; missing rows are results \
         not reproduced, each with the reason. The rows are `scenarios/papers/ledger.toml`; \
         the verdicts come from the checks the figures recorded when they ran.\n\n\
         Regenerate: `radial repro all --out docs/results` (runs every figure, then writes \
         this page), or `radial repro ledger --out docs/results` (this page alone, from the \
         checks recorded in `docs/results/checks.json`).\n\n",
    );
    md.push_str(
        "| paper | figures and tables | reproduced, holds | reproduced, does not hold | missing | illustrations and setups |\n|---|---|---|---|---|---|\n",
    );
    let verdicts: Vec<Vec<Verdict>> = ledger
        .paper
        .iter()
        .map(|p| p.row.iter().map(|r| verdict(r, rec)).collect())
        .collect();
    for (p, vs) in ledger.paper.iter().zip(&verdicts) {
        let count = |f: fn(&Verdict) -> bool| vs.iter().filter(|v| f(v)).count();
        let _ = writeln!(
            md,
            "| [{}](#{}) | {} | {} | {} | {} | {} |",
            p.key,
            p.key,
            vs.len(),
            count(|v| matches!(v, Verdict::Holds(_))),
            count(|v| matches!(v, Verdict::Fails(..) | Verdict::NoData(_))),
            count(|v| matches!(v, Verdict::Missing)),
            count(|v| matches!(v, Verdict::Illustration | Verdict::Setup)),
        );
    }
    for (p, vs) in ledger.paper.iter().zip(&verdicts) {
        let _ = write!(
            md,
            "\n<a id=\"{}\"></a>\n## {}\n\nThe figures' sections, with every check and its numbers: [{}]({}).\n\n",
            p.key, p.title, p.page, p.page
        );
        md.push_str(&paper_table(p, vs, rec));
    }
    md
}

/// One paper's rows with their verdicts, and the checks that do not hold.
fn paper_table(p: &Paper, vs: &[Verdict], rec: &Record) -> String {
    let mut md = String::from(
        "| figure or table | what it shows | the paper | reproduced by | verdict |\n|---|---|---|---|---|\n",
    );
    for (r, v) in p.row.iter().zip(vs) {
        let by = r
            .targets
            .iter()
            .map(|t| format!("`{t}`"))
            .collect::<Vec<_>>()
            .join(", ");
        let text = match v {
            Verdict::Holds(n) => format!(
                "**holds** ({n} of {n} check{})",
                if *n == 1 { "" } else { "s" }
            ),
            Verdict::Fails(h, n) => format!("**does not hold** ({h} of {n} checks hold)"),
            Verdict::NoData(why) => format!("**does not hold**: no data ({why})"),
            Verdict::Illustration => {
                format!("illustration: {}", r.place.as_deref().unwrap_or_default())
            }
            Verdict::Setup => format!("setup: {}", r.place.as_deref().unwrap_or_default()),
            Verdict::Missing => format!(
                "**not reproduced**: {}",
                r.why.as_deref().unwrap_or_default()
            ),
        };
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} |",
            r.item,
            r.about,
            r.claim.as_deref().unwrap_or("—"),
            if by.is_empty() { "—".into() } else { by },
            text
        );
    }
    let failing: Vec<(&String, &Recorded)> = p
        .row
        .iter()
        .flat_map(|r| &r.targets)
        .filter_map(|t| Some((t, rec.get(t)?)))
        .flat_map(|(t, c)| c.iter().filter(|c| !c.holds).map(move |c| (t, c)))
        .collect();
    if !failing.is_empty() {
        md.push_str("\nChecks that do not hold:\n\n");
        let mut seen = Vec::new();
        for (t, c) in failing {
            if seen.contains(&(t, &c.what)) {
                continue;
            }
            seen.push((t, &c.what));
            let _ = writeln!(md, "- `{t}`: {} ({})", c.what, c.detail);
        }
    }
    md
}

/// `radial repro ledger`: writes `out/ledger.md` from the rows and the
/// checks recorded in `out/checks.json`, and opens each paper's page in
/// `out` with its rows.
pub(super) fn run(out: &Path, known: &[&str]) -> Result<(), CliError> {
    let ledger = load(known).map_err(CliError::Input)?;
    let rec = read_record(out)?;
    crate::error::out_dir(out)?;
    let md = page(&ledger, &rec);
    write(&out.join("ledger.md"), &md)?;
    println!("wrote {}", out.join("ledger.md").display());
    for p in &ledger.paper {
        let vs: Vec<Verdict> = p.row.iter().map(|r| verdict(r, &rec)).collect();
        // Only pages a figure wrote: a paper none of whose figures ran
        // here has no page to open.
        let path = out.join(&p.page);
        if let Ok(doc) = std::fs::read_to_string(&path) {
            write(&path, &splice_first(&doc, &what_holds(p, &vs, &rec)))?;
        }
    }
    Ok(())
}

/// The block a paper's page opens with: its rows and their verdicts.
fn what_holds(p: &Paper, vs: &[Verdict], rec: &Record) -> String {
    format!(
        "## What holds\n\nEvery figure and table of the paper with its verdict, from the checks of the sections below (all five papers: [ledger.md](ledger.md)).\n\n{}\n",
        paper_table(p, vs, rec)
    )
}

const FIRST_START: &str = "<!-- repro:ledger:start -->";
const FIRST_END: &str = "<!-- repro:ledger:end -->";

/// Replaces the page's ledger block, or puts it before the first section.
fn splice_first(doc: &str, body: &str) -> String {
    let block = format!("{FIRST_START}\n{body}{FIRST_END}\n");
    match (doc.find(FIRST_START), doc.find(FIRST_END)) {
        (Some(a), Some(b)) if b > a => {
            let rest = doc[b + FIRST_END.len()..].trim_start_matches('\n');
            format!("{}{block}{rest}", &doc[..a])
        }
        _ => match doc.find("<!-- repro:") {
            Some(a) => format!("{}{block}{}", &doc[..a], &doc[a..]),
            None => format!("{}\n{block}", doc.trim_end()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pages_ledger_block_goes_before_its_first_section_and_is_replaced_in_place() {
        let doc = "# Results: x\n\nintro\n<!-- repro:a:start -->\nA\n<!-- repro:a:end -->\n";
        let once = splice_first(doc, "one\n");
        assert_eq!(
            once,
            "# Results: x\n\nintro\n<!-- repro:ledger:start -->\none\n<!-- repro:ledger:end -->\n<!-- repro:a:start -->\nA\n<!-- repro:a:end -->\n"
        );
        let twice = splice_first(&once, "two\n");
        assert_eq!(twice, once.replace("one", "two"));
        assert_eq!(splice_first(&twice, "two\n"), twice);
        // A page without sections gets the block at its end.
        assert!(splice_first("# T\n", "b\n").ends_with("<!-- repro:ledger:end -->\n"));
    }

    fn known() -> Vec<&'static str> {
        super::super::targets().iter().map(|t| t.name).collect()
    }

    #[test]
    fn every_row_is_reproduced_or_says_what_it_is_and_every_figure_is_on_a_row() {
        let ledger = load(&known()).unwrap();
        assert_eq!(ledger.paper.len(), 5);
        let rows: usize = ledger.paper.iter().map(|p| p.row.len()).sum();
        assert!(rows > 60, "{rows} rows");
    }

    #[test]
    fn a_figure_not_run_or_without_checks_fails_its_row() {
        let ledger = load(&known()).unwrap();
        let row = ledger.paper[0]
            .row
            .iter()
            .find(|r| r.targets == ["rcp-fig5a"])
            .unwrap();
        let mut rec = Record::new();
        assert!(matches!(verdict(row, &rec), Verdict::NoData(_)));
        rec.insert("rcp-fig5a".into(), Vec::new());
        assert!(matches!(verdict(row, &rec), Verdict::NoData(_)));
        let check = |holds| Recorded {
            what: "w".into(),
            holds,
            detail: String::new(),
        };
        rec.insert("rcp-fig5a".into(), vec![check(true), check(false)]);
        assert_eq!(verdict(row, &rec), Verdict::Fails(1, 2));
        rec.insert("rcp-fig5a".into(), vec![check(true)]);
        assert_eq!(verdict(row, &rec), Verdict::Holds(1));
        // The page says so, and lists the failing check.
        rec.insert("rcp-fig5a".into(), vec![check(true), check(false)]);
        let md = page(&ledger, &rec);
        assert!(md.contains("**does not hold** (1 of 2 checks hold)"));
        assert!(md.contains("- `rcp-fig5a`: w ()"));
        assert!(md.contains("`rcp-fig4ab` has not been run"));
    }

    #[test]
    fn a_row_that_names_an_unknown_figure_is_refused() {
        let e = load(&["rcp-fig5a"]).unwrap_err();
        assert!(e.contains("unknown figure"), "{e}");
    }
}
