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
    /// A file or directory mpv writes could not be written.
    #[error(
        "{path}: {source} (check that its directory exists and is writable and that the disk has space)"
    )]
    Write {
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
    /// The analysis ran out of memory inside the solver.
    #[error(
        "out of memory: the analysis reached the address-space limit of {limit_mb} MB \
         ({detail}); give it more memory (`--memory-limit` of `mpv batch`, or `ulimit -v`)"
    )]
    OutOfMemory { limit_mb: u64, detail: String },
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

    /// A failure to create or write `path`.
    pub fn write(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Write {
            path: path.into(),
            source,
        }
    }
}
