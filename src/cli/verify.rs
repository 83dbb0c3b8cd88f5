//! `mpv verify`.

use crate::Result;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct VerifyArgs {}

pub fn run(_args: VerifyArgs) -> Result<ExitCode> {
    Err(crate::Error::Usage(
        "`mpv verify` is not implemented yet".into(),
    ))
}
