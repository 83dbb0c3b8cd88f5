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
    #[error("{at}: syntax error: {message}")]
    Parse { at: InputPos, message: String },
    /// The C input uses a construct the parser does not know (found where
    /// parsing stopped).
    #[error("{at}: unsupported construct: {construct} ({hint})")]
    UnsupportedSyntax {
        at: InputPos,
        construct: String,
        hint: String,
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

/// A place in a C input: the input file's own line and column, and the
/// header line `#line` directives map it to where that differs, shown as
/// `module.i:1234:5 (from include/linux/foo.h:88)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputPos {
    /// The input file as given.
    pub input: String,
    /// 1-based line and column (in bytes) in the input file.
    pub line: u32,
    pub column: u32,
    /// The file and line `#line` directives give, if not the input's own.
    pub mapped: Option<(String, u32)>,
}

impl std::fmt::Display for InputPos {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.input, self.line, self.column)?;
        if let Some((file, line)) = &self.mapped {
            write!(f, " (from {file}:{line})")?;
        }
        Ok(())
    }
}

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
