//! `mpv cfa`.

use crate::Result;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct CfaArgs {}

pub fn run(_args: CfaArgs) -> Result<ExitCode> {
    Err(crate::Error::Usage(
        "`mpv cfa` is not implemented yet".into(),
    ))
}
