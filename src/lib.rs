//! mpv: a multi-property software verifier for Linux driver API rules.
//!
//! Data flows top-down: C file → [`frontend`] → [`cfa::Program`] → the CPA
//! algorithm over the LOOM composite ([`cpa`]) inside CEGAR inside the SDC
//! loop ([`algorithm`]) → per-property results ([`report`]). See
//! `ARCHITECTURE.md` for the code map.

pub mod algorithm;
pub mod batch;
pub mod cfa;
pub mod cli;
pub mod cpa;
pub mod error;
pub mod eval;
pub mod frontend;
pub mod hash;
pub mod ir;
pub mod report;
pub mod smt;
pub mod spec;
pub mod util;
pub mod witness;

pub use error::{Error, Result};
