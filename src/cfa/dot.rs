//! Graphviz output of CFAs.
