//! Specification automata (paper 002, Sect. 3): properties, their sets, and
//! the inputs mpv accepts as properties. Present today:
//! - [`Property`] / [`PropertyId`] / [`PropertySet`] (the precision of the
//!   specification analysis is a `PropertySet`);
//! - [`prp`]: SV-COMP property files, `G ! label(L)` and `G ! call(f())`;
//! - [`relevance`]: the paper's syntactic relevance of a property for a program;
//! - [`dsl`]: the rule language (lexer, parser), [`automaton`]: its checked,
//!   compiled form, [`bound`]: an automaton bound to a program (spec
//!   variables, `step` with instantiated operations to weave), [`coverage`]:
//!   the "assumes cover true" check, [`spc`]: CPAchecker `.spc` import,
//!   [`library`]: the bundled rules of `properties/` and rule loading.

pub mod automaton;
pub mod bound;
pub mod coverage;
pub mod dsl;
pub mod library;
pub mod prp;
pub mod relevance;
pub mod spc;

use serde::Serialize;

/// Index of a property in a [`Properties`] list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct PropertyId(pub u32);

/// What a property forbids.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Goal {
    /// Reaching a location labelled with this label (`G ! label(L)`).
    Label(String),
    /// Calling this function (`G ! call(f())`).
    Call(String),
    /// Reaching the error state of property `property` of the automaton
    /// at index `automaton` of the automata a verification run binds.
    Rule { automaton: usize, property: usize },
}

/// One property to verify.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Property {
    /// Stable id: `label:L`, `call:f`, or a rule id such as `32_1`.
    pub id: String,
    pub description: String,
    pub goal: Goal,
    /// The entry function the property file names (`init(main())`).
    pub entry: Option<String>,
    /// Where the property was defined (`file:line`).
    pub origin: String,
    /// What its verdict is for.
    #[serde(skip)]
    pub purpose: Purpose,
}

/// What a property's verdict is for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Purpose {
    /// A verdict for the user: TRUE, FALSE with a counterexample, or
    /// UNKNOWN.
    #[default]
    Verdict,
    /// Only a proof serves (a side condition of the analysis, such as the
    /// cut of a bug-hunting variant): the analysis gives the property up at
    /// its first error state instead of checking a path to it.
    ProofOnly,
}

/// A set of properties, as a bit set over [`PropertyId`]s: cheap to copy for
/// the common case of at most 64 properties, unbounded otherwise.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct PropertySet {
    words: Vec<u64>,
}

impl PropertySet {
    pub fn new() -> Self {
        Self::default()
    }

    /// The set `{0, .., n-1}`.
    pub fn all(n: usize) -> Self {
        let mut s = Self::new();
        for i in 0..n {
            s.insert(PropertyId(i as u32));
        }
        s
    }

    pub fn insert(&mut self, p: PropertyId) {
        let (w, b) = (p.0 as usize / 64, p.0 % 64);
        if self.words.len() <= w {
            self.words.resize(w + 1, 0);
        }
        self.words[w] |= 1 << b;
    }

    pub fn remove(&mut self, p: PropertyId) {
        let (w, b) = (p.0 as usize / 64, p.0 % 64);
        if let Some(x) = self.words.get_mut(w) {
            *x &= !(1 << b);
        }
        self.trim();
    }

    pub fn contains(&self, p: PropertyId) -> bool {
        let (w, b) = (p.0 as usize / 64, p.0 % 64);
        self.words.get(w).is_some_and(|x| x & (1 << b) != 0)
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    pub fn len(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    pub fn intersects(&self, other: &PropertySet) -> bool {
        self.words.iter().zip(&other.words).any(|(a, b)| a & b != 0)
    }

    /// `self ∩ other`.
    pub fn intersection(&self, other: &PropertySet) -> PropertySet {
        let mut s = PropertySet {
            words: self
                .words
                .iter()
                .zip(&other.words)
                .map(|(a, b)| a & b)
                .collect(),
        };
        s.trim();
        s
    }

    /// `self ∪ other`.
    pub fn union(&self, other: &PropertySet) -> PropertySet {
        let n = self.words.len().max(other.words.len());
        let word = |v: &[u64], i: usize| v.get(i).copied().unwrap_or(0);
        PropertySet {
            words: (0..n)
                .map(|i| word(&self.words, i) | word(&other.words, i))
                .collect(),
        }
    }

    /// `self ⊆ other`.
    pub fn is_subset(&self, other: &PropertySet) -> bool {
        self.difference(other).is_empty()
    }

    /// `self \ other`.
    pub fn difference(&self, other: &PropertySet) -> PropertySet {
        let mut s = PropertySet {
            words: self
                .words
                .iter()
                .enumerate()
                .map(|(i, w)| w & !other.words.get(i).copied().unwrap_or(0))
                .collect(),
        };
        s.trim();
        s
    }

    pub fn iter(&self) -> impl Iterator<Item = PropertyId> + '_ {
        self.words.iter().enumerate().flat_map(|(i, &w)| {
            (0..64)
                .filter(move |b| w & (1u64 << b) != 0)
                .map(move |b| PropertyId((i * 64 + b) as u32))
        })
    }

    /// Keeps the representation canonical (no trailing zero words), so equal
    /// sets are equal values and hash alike.
    fn trim(&mut self) {
        while self.words.last() == Some(&0) {
            self.words.pop();
        }
    }
}

impl FromIterator<PropertyId> for PropertySet {
    fn from_iter<I: IntoIterator<Item = PropertyId>>(iter: I) -> Self {
        let mut s = PropertySet::new();
        for p in iter {
            s.insert(p);
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_union_has_the_members_of_both_sets() {
        let a: PropertySet = [PropertyId(1), PropertyId(70)].into_iter().collect();
        let b: PropertySet = [PropertyId(2)].into_iter().collect();
        let u = a.union(&b);
        assert_eq!(u.len(), 3);
        assert!(a.is_subset(&u) && b.is_subset(&u));
        assert_eq!(b.union(&a), u);
    }

    #[test]
    fn property_sets_are_canonical_bit_sets() {
        let mut a: PropertySet = [PropertyId(1), PropertyId(70)].into_iter().collect();
        assert!(a.contains(PropertyId(70)) && !a.contains(PropertyId(2)));
        assert_eq!(a.len(), 2);
        a.remove(PropertyId(70));
        let b: PropertySet = [PropertyId(1)].into_iter().collect();
        assert_eq!(
            a, b,
            "removing the high bit gives the same value as never having it"
        );
        assert_eq!(
            PropertySet::all(3)
                .difference(&b)
                .iter()
                .collect::<Vec<_>>(),
            vec![PropertyId(0), PropertyId(2)]
        );
        assert!(PropertySet::all(3).intersects(&b));
        a.remove(PropertyId(1));
        assert!(a.is_empty());
    }
}
