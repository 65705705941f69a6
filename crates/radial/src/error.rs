//! The error every command reports: bad input exits with status 2, a
//! failure of the work with status 1, and work that ran but whose
//! acceptance checks do not all hold (`radial repro`) with status 3.

use std::fmt;

/// An error to report to the user: input errors exit 2, failures 1.
#[derive(Debug)]
pub enum CliError {
    /// Bad input (scenario, flags, paths): exit status 2.
    Input(String),
    /// The work failed (I/O while writing output, ...): exit status 1.
    Failed(String),
    /// The work ran and wrote its pages, but some of the acceptance checks
    /// they hold it to do not hold: exit status 3.
    ChecksFail(String),
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Input(m) | CliError::Failed(m) | CliError::ChecksFail(m) => f.write_str(m),
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

/// Wraps an error reading a file or directory the user named: bad input,
/// exit status 2.
pub fn input_err(path: &std::path::Path, e: std::io::Error) -> CliError {
    CliError::Input(format!("{}: {e}", path.display()))
}

/// Creates the output directory the user named (`--out`); one that cannot
/// be made is bad input, exit status 2.
pub fn out_dir(out: &std::path::Path) -> Result<(), CliError> {
    std::fs::create_dir_all(out).map_err(|e| {
        CliError::Input(format!(
            "{}: cannot make the output directory: {e}",
            out.display()
        ))
    })
}
