//! sweep
use std::path::Path;
use crate::cli::CliError;
pub fn sweep_cmd(_s: &Path, _o: &Path, _j: Option<usize>) -> Result<(), CliError> { Ok(()) }
