//! Abstract regions of the predicate analysis: Boolean functions of the
//! predicates, as sets of cubes, with their formula and the cheap
//! propositional checks that decide coverage before a solver is asked.

use crate::hash::HashSet;
use z3::ast::Bool;

use super::predicates::{Lit, Predicates};

/// An abstract region: a disjunction of cubes (conjunctions of literals,
/// sorted by predicate index). No cube is `false`; one empty cube is `true`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Region {
    pub cubes: Vec<Vec<Lit>>,
}

impl Region {
    pub fn top() -> Self {
        Region {
            cubes: vec![Vec::new()],
        }
    }

    pub fn is_top(&self) -> bool {
        self.cubes.iter().any(Vec::is_empty)
    }

    /// The predicates the region mentions.
    pub fn support(&self) -> HashSet<u32> {
        self.cubes.iter().flatten().map(|&(i, _)| i).collect()
    }

    pub fn formula(&self, preds: &Predicates) -> Bool {
        let cubes: Vec<Bool> = self
            .cubes
            .iter()
            .map(|c| {
                let lits: Vec<Bool> = c
                    .iter()
                    .map(|&(i, pos)| {
                        let t = &preds.list[i as usize].term;
                        if pos {
                            t.clone()
                        } else {
                            t.not()
                        }
                    })
                    .collect();
                Bool::and(&lits)
            })
            .collect();
        Bool::or(&cubes)
    }

    /// Propositional entailment (predicates as independent Boolean
    /// variables): every cube of `self` entails the disjunction of `other`'s.
    /// `None` when deciding it would take more than a fixed number of case
    /// splits.
    pub(super) fn entails_propositionally(&self, other: &Region) -> Option<bool> {
        let mut budget = ENTAILMENT_SPLITS;
        for c in &self.cubes {
            if !covers_all(&restricted(&other.cubes, c), &mut budget)? {
                return Some(false);
            }
        }
        Some(true)
    }

    /// Syntactic entailment: every cube of `self` contains some cube of `other`.
    pub(super) fn entails_syntactically(&self, other: &Region) -> bool {
        self.cubes
            .iter()
            .all(|c| other.cubes.iter().any(|d| d.iter().all(|l| c.contains(l))))
    }
}

/// Case splits [`Region::entails_propositionally`] may make.
const ENTAILMENT_SPLITS: usize = 10_000;

/// Whether the disjunction of `cubes` is valid (every assignment satisfies
/// one), by case splits on a variable of the first cube; `None` past
/// `budget` splits.
fn covers_all(cubes: &[Vec<Lit>], budget: &mut usize) -> Option<bool> {
    if cubes.iter().any(Vec::is_empty) {
        return Some(true);
    }
    let Some(&(var, _)) = cubes.first().and_then(|c| c.first()) else {
        return Some(false);
    };
    if *budget == 0 {
        return None;
    }
    *budget -= 1;
    for value in [true, false] {
        if !covers_all(&restricted(cubes, &[(var, value)]), budget)? {
            return Some(false);
        }
    }
    Some(true)
}

/// The cubes consistent with the literals `given`, without those literals:
/// the disjunction under the partial assignment `given`.
fn restricted(cubes: &[Vec<Lit>], given: &[Lit]) -> Vec<Vec<Lit>> {
    cubes
        .iter()
        .filter(|d| d.iter().all(|&(i, pos)| !given.contains(&(i, !pos))))
        .map(|d| d.iter().filter(|l| !given.contains(l)).copied().collect())
        .collect()
}
