//! Hash maps and sets with a fixed seed.
//!
//! The analysis iterates over some of its maps (atoms of a precondition,
//! predicates derived from them), and the order decides which
//! predicates and abstract paths come first. With a random seed per map, as
//! `hashbrown`'s default hasher has, two runs on the same input could
//! analyse differently; with a fixed seed they differ only where a CPU-time
//! budget cuts work off at a different point.
//! Keys in these maps are names from the module, locations and Z3 terms, not
//! chosen to collide, so hash flooding is not a concern.

/// The hasher of every map and set in mpv.
pub type FixedState = foldhash::fast::FixedState;

/// `hashbrown::HashMap` with [`FixedState`]; make one with `default()`.
pub type HashMap<K, V> = hashbrown::HashMap<K, V, FixedState>;

/// `hashbrown::HashSet` with [`FixedState`]; make one with `default()`.
pub type HashSet<T> = hashbrown::HashSet<T, FixedState>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_built_alike_iterate_alike() {
        let build = || {
            let mut m: HashMap<String, usize> = HashMap::default();
            for i in 0..1000 {
                m.insert(format!("v{i}"), i);
            }
            m.into_iter().map(|(_, i)| i).collect::<Vec<_>>()
        };
        assert_eq!(build(), build());
    }
}
