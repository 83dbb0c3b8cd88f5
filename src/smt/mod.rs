//! C expressions to Z3 terms, the solver wrapper and its caches.
