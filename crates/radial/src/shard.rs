//! `radial sweep --shard I/N` and `radial merge`: a sweep cut into N
//! deterministic shares, each run anywhere (a cluster's job array), and
//! joined into the `results.csv` the whole sweep writes, byte for byte.
//!
//! Shard I of N runs the sweep's runs (points × seeds, in sweep order)
//! whose index is I − 1 modulo N, and writes `results-shard-I-of-N.json`:
//! the swept parameters' names, and for each flow of each run its index
//! in sweep order, the parameters' values and the output columns already
//! formatted. `merge` checks that every shard of the same sweep is there
//! once, puts the rows back in sweep order and writes `results.csv` with
//! the columns the whole sweep would have chosen.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::CliError;
use crate::run::write;
use crate::sweep::{render, Row};

/// Which share of a sweep to run: `index` in 1..=`count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// This shard, from 1.
    pub index: usize,
    /// How many shards the sweep is cut into.
    pub count: usize,
}

impl Shard {
    /// Parses `I/N` with 1 ≤ I ≤ N.
    pub fn parse(text: &str) -> Result<Self, CliError> {
        let bad = || {
            CliError::Input(format!(
                "--shard `{text}`: expected I/N with 1 <= I <= N (for example 3/8)"
            ))
        };
        let (i, n) = text.split_once('/').ok_or_else(bad)?;
        let (index, count) = (
            i.trim().parse::<usize>().map_err(|_| bad())?,
            n.trim().parse::<usize>().map_err(|_| bad())?,
        );
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// True when the run with this index in sweep order is this shard's.
    pub fn owns(&self, task: usize) -> bool {
        task % self.count == self.index - 1
    }

    /// The file this shard writes in its output directory.
    pub fn file_name(&self) -> String {
        format!("results-shard-{}-of-{}.json", self.index, self.count)
    }
}

/// What a shard writes.
#[derive(Debug, Serialize, Deserialize)]
pub struct ShardFile {
    /// Scenario name (shards of different sweeps are not merged).
    pub scenario: String,
    /// This shard, from 1.
    pub index: usize,
    /// Shards in all.
    pub count: usize,
    /// Runs in the whole sweep.
    pub tasks: usize,
    /// The swept parameters, in the scenario's order.
    pub names: Vec<String>,
    /// Its rows: (index in sweep order, parameter values, output columns).
    pub rows: Vec<(usize, Vec<String>, Vec<String>)>,
}

impl ShardFile {
    /// A shard's file from its rows.
    pub fn new(
        scenario: &str,
        shard: Shard,
        tasks: usize,
        names: Vec<String>,
        rows: Vec<Row>,
    ) -> Self {
        ShardFile {
            scenario: scenario.to_string(),
            index: shard.index,
            count: shard.count,
            tasks,
            names,
            rows: rows
                .into_iter()
                .map(|r| (r.task, r.params, r.fields))
                .collect(),
        }
    }
}

/// Reads shard files (or every `results-shard-*.json` in the directories
/// given) and returns the whole sweep's `results.csv`.
pub fn merge(inputs: &[PathBuf]) -> Result<String, CliError> {
    let mut files = Vec::new();
    for input in inputs {
        if input.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(input)
                .map_err(|e| crate::error::input_err(input, e))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with("results-shard-") && n.ends_with(".json"))
                })
                .collect();
            found.sort();
            files.extend(found);
        } else {
            files.push(input.clone());
        }
    }
    let mut shards = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).map_err(|e| crate::error::input_err(f, e))?;
        let s: ShardFile = serde_json::from_str(&text).map_err(|e| {
            CliError::Input(format!(
                "{}: not a shard file of `radial sweep --shard`: {e}",
                f.display()
            ))
        })?;
        shards.push((f.clone(), s));
    }
    join(shards)
}

/// Checks that the shards make one whole sweep and joins their rows.
fn join(shards: Vec<(PathBuf, ShardFile)>) -> Result<String, CliError> {
    let Some((first_path, first)) = shards.first() else {
        return Err(CliError::Input("no shard files to merge".into()));
    };
    let (scenario, count, tasks, names) = (
        first.scenario.clone(),
        first.count,
        first.tasks,
        first.names.clone(),
    );
    let mut seen = vec![None::<&Path>; count];
    for (path, s) in &shards {
        if s.scenario != scenario || s.count != count || s.tasks != tasks || s.names != names {
            return Err(CliError::Input(format!(
                "{} is from another sweep than {} (scenario, shard count, runs or parameters differ)",
                path.display(),
                first_path.display()
            )));
        }
        match seen.get_mut(s.index.wrapping_sub(1)) {
            Some(slot @ None) => *slot = Some(path),
            Some(Some(other)) => {
                return Err(CliError::Input(format!(
                    "shard {}/{count} given twice: {} and {}",
                    s.index,
                    other.display(),
                    path.display()
                )))
            }
            None => {
                return Err(CliError::Input(format!(
                    "{}: shard index {} is not in 1..={count}",
                    path.display(),
                    s.index
                )))
            }
        }
    }
    let missing: Vec<String> = seen
        .iter()
        .enumerate()
        .filter(|(_, p)| p.is_none())
        .map(|(i, _)| format!("{}/{count}", i + 1))
        .collect();
    if !missing.is_empty() {
        return Err(CliError::Input(format!(
            "shards missing: {}",
            missing.join(", ")
        )));
    }
    let mut rows: Vec<Row> = shards
        .into_iter()
        .flat_map(|(_, s)| s.rows)
        .map(|(task, params, fields)| Row {
            task,
            params,
            fields,
        })
        .collect();
    // A stable sort keeps each run's flows in their order.
    rows.sort_by_key(|r| r.task);
    Ok(render(&names, &rows))
}

/// `radial merge`: writes the joined `results.csv` into `out`.
pub fn merge_cmd(inputs: &[PathBuf], out: &Path) -> Result<(), CliError> {
    let csv = merge(inputs)?;
    crate::error::out_dir(out)?;
    let path = out.join("results.csv");
    write(&path, &csv)?;
    println!("wrote {}", path.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_arguments() {
        assert_eq!(Shard::parse("3/8").unwrap(), Shard { index: 3, count: 8 });
        for bad in ["0/8", "9/8", "3", "a/b", "3/0", ""] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
        let s = Shard::parse("2/3").unwrap();
        assert_eq!((0..7).filter(|&t| s.owns(t)).collect::<Vec<_>>(), [1, 4]);
    }

    fn file(
        index: usize,
        count: usize,
        rows: Vec<(usize, Vec<String>, Vec<String>)>,
    ) -> (PathBuf, ShardFile) {
        (
            PathBuf::from(format!("s{index}.json")),
            ShardFile {
                scenario: "t".into(),
                index,
                count,
                tasks: 3,
                names: vec!["loss".into()],
                rows,
            },
        )
    }

    #[test]
    fn merge_names_missing_and_repeated_shards() {
        let row = |t: usize| (t, vec!["0.1".into()], vec!["1".into()]);
        let e = join(vec![file(1, 2, vec![row(0)])]).unwrap_err();
        assert!(e.to_string().contains("missing: 2/2"), "{e}");
        let e = join(vec![file(1, 2, vec![row(0)]), file(1, 2, vec![row(2)])]).unwrap_err();
        assert!(e.to_string().contains("given twice"), "{e}");
        let mut other = file(2, 2, vec![row(1)]);
        other.1.scenario = "u".into();
        let e = join(vec![file(1, 2, vec![row(0)]), other]).unwrap_err();
        assert!(e.to_string().contains("another sweep"), "{e}");
    }
}
