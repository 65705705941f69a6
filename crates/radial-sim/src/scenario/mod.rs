//! Scenario files: TOML in, validated [`RunSpec`]s out, one per sweep point
//! and seed. Errors name the file, the line and the key.
//!
//! Sweeps: `[sweep]` lists `seeds` and, under `[sweep.params]`, named value
//! lists. Elsewhere in the file `"${name}"` (the whole string) stands for the
//! value itself and `${name}` inside a longer string for its text, so
//! `loss = "${loss}"` is a number and `delay = "${delay_ms}ms"` a time.

mod figure;
mod flows;
mod mobility;
mod params;
mod pipes;
mod prism;
mod repeat;
mod schedule;
mod schema;
pub use figure::FigureText;
pub use params::link_loss;
pub use schema::{LossTable, LossValue};
mod sweep;
mod text;
mod topology;
mod trace;
pub mod units;

use text::{line_of, readable_key, readable_message};

use std::fmt;
use std::path::Path;

use radial_core::r2cp::{FlowControl, Rules, TargetRate};
use radial_core::rcp::{Opener, RcpConfig, RcpVariant};
use radial_core::tcp::{TcpConfig, TcpVariant};
use radial_core::{Duration, PathId};
use toml::Spanned;

use crate::channel::GilbertElliottParams;
use crate::spec::{Direction, FlowProtocol, LossSpec, OnOffSpec, RunSpec};
use schema::{File, TcpTable, TrafficTable};
use sweep::substitute;

/// The initial retransmission timeout of an R²CP pipe unless the scenario
/// sets `initial_rto` (RFC 6298 §2.1).
pub const PIPE_INITIAL_RTO: Duration = Duration::from_secs(1);

/// A scenario problem, located in its file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// The file.
    pub file: String,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// The key path (`link[1].rate`).
    pub key: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(l) = self.line {
            write!(f, ":{l}")?;
        }
        // Errors of the whole file (it cannot be read, or is not TOML)
        // name no key.
        if !self.key.is_empty() && self.key != "-" {
            write!(f, ": key `{}`", self.key)?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for ScenarioError {}

/// One point of a sweep: a value for each swept parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    /// `(name, value)` in the order the scenario declares them.
    pub values: Vec<(String, toml::Value)>,
}

impl Point {
    /// The value of `name` as plain text (for CSV columns and labels).
    pub fn text(&self, name: &str) -> Option<String> {
        self.values
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| value_text(v))
    }
}

fn value_text(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A loaded scenario file.
#[derive(Clone, Debug)]
pub struct Scenario {
    file: String,
    text: String,
    /// Scenario name (`[scenario] name`).
    pub name: String,
    /// Swept parameters and their values, in file order.
    pub params: Vec<(String, Vec<toml::Value>)>,
    /// Groups of parameters that vary together, value by value, instead of
    /// in every combination (`[sweep] zip = [...]`, or a list of such
    /// lists for several groups).
    pub zip: Vec<Vec<String>>,
    /// Seeds to run.
    pub seeds: Vec<u64>,
    /// The words of the figure it reproduces (`[figure]`), if any.
    pub figure: Option<FigureText>,
}

impl Scenario {
    /// The run description of `point` with `seed`.
    pub fn build(&self, point: &Point, seed: u64) -> Result<RunSpec, ScenarioError> {
        let text = substitute(&self.text, point).map_err(|(line, key)| ScenarioError {
            file: self.file.clone(),
            line: Some(line),
            key: key.clone(),
            message: format!("`${{{key}}}` is not a sweep parameter"),
        })?;
        let de = toml::Deserializer::new(&text);
        let file: File = serde_path_to_error::deserialize(de).map_err(|e| {
            let key = readable_key(&e.path().to_string());
            let inner = e.into_inner();
            ScenarioError {
                file: self.file.clone(),
                line: inner.span().map(|s| line_of(&text, s.start)),
                key,
                message: readable_message(inner.message()),
            }
        })?;
        Resolver {
            file: &self.file,
            text: &text,
        }
        .resolve(file, seed)
    }
}

/// The most samples of a run's series a scenario may ask for.
pub const MAX_SAMPLES: u64 = 1_000_000;

struct Resolver<'a> {
    file: &'a str,
    text: &'a str,
}

impl Resolver<'_> {
    fn err<T>(
        &self,
        span: Option<std::ops::Range<usize>>,
        key: String,
        message: String,
    ) -> Result<T, ScenarioError> {
        Err(ScenarioError {
            file: self.file.to_string(),
            line: span.map(|s| line_of(self.text, s.start)),
            key,
            message,
        })
    }

    /// Where `name = ...` first appears in the file (for keys whose values
    /// carry no position of their own).
    fn key_span(&self, name: &str) -> Option<std::ops::Range<usize>> {
        let mut at = 0;
        for line in self.text.split_inclusive('\n') {
            let t = line.trim_start().trim_start_matches('{').trim_start();
            if let Some(rest) = t.strip_prefix(name) {
                if rest.trim_start().starts_with('=') {
                    return Some(at..at + line.len());
                }
            }
            if let Some(i) = line
                .find(&format!(" {name} ="))
                .or_else(|| line.find(&format!("{{{name} =")))
            {
                return Some(at + i..at + line.len());
            }
            at += line.len();
        }
        None
    }

    /// A sample interval that would take more than [`MAX_SAMPLES`] samples
    /// of the run can only be a typo (a microsecond for a millisecond): the
    /// run would spend its time, and its memory, on samples.
    fn sample_interval(&self, file: &File) -> Result<(), ScenarioError> {
        let Some(t) = file.scenario.sample_interval else {
            return Ok(());
        };
        let (every, duration) = (t.0.as_nanos(), file.scenario.duration.0.as_nanos());
        if every > 0 && duration / every > MAX_SAMPLES {
            return self.err(
                self.key_span("sample_interval"),
                "scenario.sample_interval".into(),
                format!(
                    "an interval of {} s takes {} samples of a {} s run; at most {MAX_SAMPLES} (0 turns sampling off)",
                    t.0.as_secs_f64(),
                    duration / every,
                    file.scenario.duration.0.as_secs_f64()
                ),
            );
        }
        Ok(())
    }

    fn node(
        &self,
        names: &[String],
        s: &Spanned<String>,
        key: String,
    ) -> Result<u32, ScenarioError> {
        match names.iter().position(|n| n == s.get_ref()) {
            Some(i) => Ok(i as u32),
            None => self.err(
                Some(s.span()),
                key,
                format!("unknown node `{}`", s.get_ref()),
            ),
        }
    }

    fn resolve(&self, file: File, seed: u64) -> Result<RunSpec, ScenarioError> {
        self.sample_interval(&file)?;
        let (nodes, energy) = self.nodes(&file)?;
        let mut channels = Vec::new();
        let links = self.links(&file, &nodes, &mut channels)?;
        let flows = self.flows(&file, seed, &nodes, &links)?;
        let mut schedule = self.schedule(&file, &links)?;
        let link_handoffs = self.link_handoffs(&file, &links, seed, &mut schedule)?;
        // Entries at the same time apply in the file's order.
        schedule.sort_by_key(|e| e.at);
        let (pcap, snaplen) = self.trace(&file.trace, &links)?;
        Ok(RunSpec {
            name: file.scenario.name,
            duration: file.scenario.duration.0,
            seed,
            nodes,
            energy,
            links,
            channels,
            flows,
            schedule,
            link_handoffs,
            overhead_bytes: file.scenario.overhead_bytes.unwrap_or(20),
            sample_interval: file
                .scenario
                .sample_interval
                .map_or(Duration::from_millis(100), |t| t.0),
            pcap,
            snaplen,
        })
    }
}

#[cfg(test)]
mod sweep_tests;
#[cfg(test)]
mod tests;
