//! Specification automata (paper 002, Sect. 3): the rule DSL with pattern
//! variables, its compiler, SV-COMP `.prp` and CPAchecker `.spc` import, the
//! bundled rule library, and property relevance.
