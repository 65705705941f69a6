//! demo
use std::path::Path;
use crate::cli::CliError;
pub fn demo(_o: &Path, _j: Option<usize>) -> Result<(), CliError> { Ok(()) }
