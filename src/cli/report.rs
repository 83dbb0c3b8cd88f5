//! `mpv report`.

use crate::Result;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct ReportArgs {}

pub fn run(_args: ReportArgs) -> Result<ExitCode> {
    Err(crate::Error::Usage(
        "`mpv report` is not implemented yet".into(),
    ))
}
