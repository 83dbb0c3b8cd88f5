//! Relevance of each task's property over the LDV corpus (`single.tsv`): how
//! many tasks make their error label reachable syntactically, split by the
//! expected verdict. An expected-false task whose label is irrelevant would
//! mean the front end lost code: it is listed and the bench fails.
//!
//!     cargo bench --bench relevance

use std::collections::BTreeMap;

use mpv::frontend::{parse_file, FrontendOptions};
use mpv::spec::{prp, relevance};
use rayon::prelude::*;

#[path = "../tests/it/common.rs"]
mod common;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let dir = common::corpus_dir();
    let rows = common::manifest("single.tsv");
    let results: Vec<(String, String, String, Result<bool, String>)> = rows
        .par_iter()
        .map(|r| {
            let res = (|| {
                let props = prp::load(&dir.join(&r[3])).map_err(|e| e.to_string())?;
                let p = parse_file(&dir.join(&r[1]), &FrontendOptions::default())
                    .map_err(|e| e.to_string())?;
                Ok(props.iter().any(|q| relevance::is_relevant(&p, q)))
            })();
            (r[0].clone(), r[1].clone(), r[4].clone(), res)
        })
        .collect();
    let mut table: BTreeMap<(String, String), [usize; 3]> = BTreeMap::new();
    let mut lost = Vec::new();
    for (set, task, expected, res) in &results {
        let cell = table.entry((set.clone(), expected.clone())).or_default();
        match res {
            Ok(true) => cell[0] += 1,
            Ok(false) => {
                cell[1] += 1;
                if expected == "false" {
                    lost.push(task.clone());
                }
            }
            Err(_) => cell[2] += 1,
        }
    }
    println!(
        "{:<22} {:<9} {:>9} {:>11} {:>7}",
        "set", "expected", "relevant", "irrelevant", "error"
    );
    for ((set, exp), c) in &table {
        println!("{set:<22} {exp:<9} {:>9} {:>11} {:>7}", c[0], c[1], c[2]);
    }
    for t in &lost {
        println!("LOST LABEL (expected false, label irrelevant): {t}");
    }
    assert!(
        lost.is_empty(),
        "{} expected-false tasks have an irrelevant error label",
        lost.len()
    );
}
