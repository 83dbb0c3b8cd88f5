//! Errors reported to the user: each names the file (and line where there is
//! one) and says what to do.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{path}: {source} (check that the file exists and is readable)")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The C input could not be parsed.
    #[error("{file}:{line}:{column}: syntax error: {message}")]
    Parse {
        file: String,
        line: u32,
        column: u32,
        message: String,
    },
    /// The C input uses a construct mpv does not support.
    #[error("{file}:{line}: unsupported construct: {construct} ({hint})")]
    Unsupported {
        file: String,
        line: u32,
        construct: String,
        hint: String,
    },
    /// A second definition of a function or an initialised object in one
    /// translation unit, as a compiler rejects it.
    #[error(
        "{file}:{line}: redefinition of `{name}` (first defined at {first_file}:{first_line})"
    )]
    Redefinition {
        name: String,
        file: String,
        line: u32,
        first_file: String,
        first_line: u32,
    },
    /// A specification file is malformed.
    #[error("{file}:{line}:{column}: {message}")]
    Spec {
        file: String,
        line: u32,
        column: u32,
        message: String,
    },
    /// Wrong use of the command line.
    #[error("{0}")]
    Usage(String),
    #[error("{0}")]
    Other(String),
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}
