//! `mpv batch`.

use crate::Result;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct BatchArgs {}

pub fn run(_args: BatchArgs) -> Result<ExitCode> {
    Err(crate::Error::Usage(
        "`mpv batch` is not implemented yet".into(),
    ))
}
