//! Every file of a fixed sample of the LDV corpus (spread over all sets of
//! `single.tsv`, plus `multi.tsv` inputs) parses and yields a CFA with an
//! entry. The whole corpus: `cargo bench --bench frontend`.

use crate::common;

use std::collections::BTreeMap;

use mpv::frontend::{parse_file, FrontendOptions};

#[test]
fn a_sample_of_every_set_parses() {
    let dir = common::corpus_dir();
    let mut by_set: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for row in common::manifest("single.tsv") {
        by_set
            .entry(row[0].clone())
            .or_default()
            .push(row[1].clone());
    }
    let mut sample = Vec::new();
    for files in by_set.values() {
        let step = (files.len() / 5).max(1);
        sample.extend(files.iter().step_by(step).take(5).cloned());
    }
    let multi = common::manifest("multi.tsv");
    sample.extend(multi.iter().step_by(multi.len() / 5).map(|r| r[1].clone()));
    assert!(sample.len() >= 40, "sample of {}", sample.len());
    let mut failures = Vec::new();
    for f in &sample {
        match parse_file(&dir.join(f), &FrontendOptions::default()) {
            Ok(p) => {
                assert!(p.start.is_some() && p.entry_func.is_some());
                assert!(!p.edges.is_empty());
            }
            Err(e) => failures.push(format!("{f}: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} failed:\n{}",
        failures.len(),
        sample.len(),
        failures.join("\n")
    );
}
