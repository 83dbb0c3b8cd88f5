//! Algorithms generic over [`crate::cpa::Cpa`]: the CPA algorithm (Alg. 1) and
//! its abstract reachability graph, CEGAR with the exact path check and
//! refinement, and the SDC loop (Alg. 2).

pub mod cegar;
pub mod control_states;
pub mod cpa_algorithm;
pub mod invariants;
pub mod loom_analysis;
pub mod path_check;
pub mod reachability;
pub mod refine;
pub mod replay;
pub mod sdc;
pub mod symexec;
pub mod unsat_core;
pub mod value_search;
pub mod verify;
