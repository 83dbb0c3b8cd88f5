//! Loop-head detection: the targets of back edges of a depth-first search from
//! each function entry (gotos forming loops included).
