//! Batch verification: many modules, in isolated processes, in parallel, with
//! durable resumable results.
