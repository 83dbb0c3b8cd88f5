//! The C front end: preprocessed, CIL-simplified GNU C (LDV modules) to the
//! typed IR and CFA. `#line` directives give every edge its original position.
