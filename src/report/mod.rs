//! Per-property results, counterexamples and the JSON output schema.
