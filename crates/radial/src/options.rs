//! Option values several commands share.

use crate::error::CliError;

/// Parses `NAME=VALUE` pairs.
pub fn parse_sets(sets: &[String]) -> Result<Vec<(String, String)>, CliError> {
    sets.iter()
        .map(|s| {
            s.split_once('=')
                .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
                .ok_or_else(|| CliError::Input(format!("--set `{s}`: expected NAME=VALUE")))
        })
        .collect()
}

/// Number of worker threads.
pub fn jobs(requested: Option<usize>) -> usize {
    requested
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1)
}
