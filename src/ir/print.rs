//! C-like text of expressions and edge operations (used in reports and as the
//! keys of specification sets).
