//! `mpv spec ...`.

use crate::Result;
use std::process::ExitCode;

#[derive(clap::Subcommand)]
pub enum SpecCommand {
    /// Validate specification files and list their properties.
    Check {},
}

pub fn run(_cmd: SpecCommand) -> Result<ExitCode> {
    Err(crate::Error::Usage(
        "`mpv spec` is not implemented yet".into(),
    ))
}
