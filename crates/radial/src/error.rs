//! The error every command reports: bad input exits with status 2, a
//! failure of the work with status 1.

use std::fmt;

/// An error to report to the user: input errors exit 2, failures 1.
#[derive(Debug)]
pub enum CliError {
    /// Bad input (scenario, flags, paths): exit status 2.
    Input(String),
    /// The work failed (I/O while writing output, ...): exit status 1.
    Failed(String),
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Input(m) | CliError::Failed(m) => f.write_str(m),
        }
    }
}

impl From<radial_sim::ScenarioError> for CliError {
    fn from(e: radial_sim::ScenarioError) -> Self {
        CliError::Input(e.to_string())
    }
}

/// Wraps an I/O error with the path it concerns.
pub fn io_err(path: &std::path::Path, e: std::io::Error) -> CliError {
    CliError::Failed(format!("{}: {e}", path.display()))
}
