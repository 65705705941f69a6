//! bench
use std::path::Path;
use crate::cli::CliError;
pub fn bench(_s: Option<&Path>, _r: u32, _n: Option<&Path>) -> Result<(), CliError> { Ok(()) }
