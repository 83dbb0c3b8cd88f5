//! Batch tasks: one module to verify with its property files and the expected
//! verdicts, from a directory of modules, SV-COMP task definitions or a TSV
//! manifest; and the fixed-seed sample of a task list, stratified by set.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::{Error, Result};

/// A verdict a benchmark expects for one rule of one task.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ExpectedVerdict {
    True,
    False,
    /// The benchmark itself does not know (e.g. `ldv-challenges`): any
    /// definite verdict is unconfirmed, none is wrong.
    Unknown,
}

impl ExpectedVerdict {
    /// Parses `true`, `false`, `unknown`; `-` (rule not checked) is `Ok(None)`.
    pub fn parse_cell(s: &str) -> std::result::Result<Option<Self>, String> {
        match s.trim() {
            "true" => Ok(Some(Self::True)),
            "false" => Ok(Some(Self::False)),
            "unknown" => Ok(Some(Self::Unknown)),
            "-" => Ok(None),
            other => Err(format!(
                "expected verdict `{other}` is not one of true, false, unknown, -"
            )),
        }
    }
}

/// The expected verdict of one rule of a task.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Expected {
    /// The rule (LDV rule id such as `32_1`, or `-` when the benchmark names none).
    pub rule: String,
    /// The mpv property id the verdict is about when the task's property files
    /// say it (`label:ERROR`); `None` for rules checked by mpv's rule library,
    /// matched by [`property_matches_rule`].
    pub property: Option<String>,
    pub verdict: ExpectedVerdict,
}

/// Whether an mpv property id is the one for an LDV rule from mpv's rule
/// library: the id is the rule itself or ends in `:RULE` or `/RULE`
/// (`32_1`, `ldv:32_1`, `linux/32_1`). This is the seam between multi.tsv's
/// rule columns and the rule specifications.
pub fn property_matches_rule(id: &str, rule: &str) -> bool {
    id == rule
        || id
            .strip_suffix(rule)
            .is_some_and(|head| head.ends_with(':') || head.ends_with('/'))
}

/// One module to verify.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Task {
    /// Stable identity across runs: the task path (as the manifest or
    /// directory names it), the property files and the rule. `--resume`
    /// skips tasks whose key is already in the results.
    pub key: String,
    /// The task path as the manifest or directory names it (relative to the
    /// manifest's root), reported in the results' `file`.
    pub file: String,
    /// The path handed to `mpv verify`.
    pub path: PathBuf,
    /// The benchmark set (a manifest's `set`, else the module's directory).
    pub set: String,
    /// The rule of a single-rule task (`single.tsv`), if the manifest names one.
    pub rule: Option<String>,
    /// Property files handed to `mpv verify --prp`.
    pub prp: Vec<PathBuf>,
    /// For tasks that add rules of mpv's bundled library (multi-rule rows):
    /// the ids of every property to check (the property files' and the
    /// rules'), passed as `--library --select`. Empty: the property files
    /// alone.
    pub library_select: Vec<String>,
    /// The data model a task definition names (`options: data_model`),
    /// passed as `--data-model`; `None`: the batch's own arguments decide.
    #[serde(default)]
    pub data_model: Option<crate::ir::DataModel>,
    pub expected: Vec<Expected>,
}

impl Task {
    /// The key of a task: `file|rule|prp,prp` (prp as the source names them).
    pub fn make_key(file: &str, rule: Option<&str>, prp_names: &[String]) -> String {
        format!("{file}|{}|{}", rule.unwrap_or("-"), prp_names.join(","))
    }
}

/// Whether a file is a module `mpv batch` verifies when it scans a directory.
fn is_module(p: &Path) -> bool {
    matches!(p.extension().and_then(|e| e.to_str()), Some("c" | "i"))
}

fn is_taskdef(p: &Path) -> bool {
    matches!(p.extension().and_then(|e| e.to_str()), Some("yml" | "yaml"))
}

/// Every regular file under `dir`, recursively, sorted. A directory
/// reached again (a symbolic link back up the tree) is not entered twice.
fn walk(dir: &Path, out: &mut Vec<PathBuf>, seen: &mut HashSet<PathBuf>) -> Result<()> {
    let real = std::fs::canonicalize(dir).map_err(|e| Error::io(dir, e))?;
    if !seen.insert(real) {
        return Ok(());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| Error::io(dir, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, out, seen)?;
        } else if p.is_file() {
            out.push(p);
        }
    }
    Ok(())
}

/// `path` without `.` components (`./x.c` and `x.c` are one task).
fn clean(path: &Path) -> PathBuf {
    let p: PathBuf = path
        .components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect();
    if p.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        p
    }
}

/// The expected verdict an SV-COMP 2014 file name carries (`x_true.c`,
/// `x_false-unreach-call.i`, `x.c_unknown.i`), if any.
pub fn verdict_from_name(name: &str) -> Option<ExpectedVerdict> {
    for (tag, v) in [
        ("_true", ExpectedVerdict::True),
        ("_false", ExpectedVerdict::False),
        ("_unknown", ExpectedVerdict::Unknown),
    ] {
        let mut rest = name;
        while let Some(i) = rest.find(tag) {
            let after = &rest[i + tag.len()..];
            if after.is_empty() || after.starts_with(['.', '-', '_']) {
                return Some(v);
            }
            rest = after;
        }
    }
    None
}

/// Tasks from paths on the command line: `.yml` task definitions, `.c`/`.i`
/// modules, and directories (scanned recursively: their task definitions if
/// there are any, else their modules). Modules are checked against `prp`;
/// their expected verdict comes from the SV-COMP file-name convention.
pub fn from_paths(paths: &[PathBuf], prp: &[PathBuf]) -> Result<Vec<Task>> {
    let mut tasks = Vec::new();
    for path in paths.iter().map(|p| clean(p)) {
        let path = &path;
        if path.is_dir() {
            let mut files = Vec::new();
            walk(path, &mut files, &mut HashSet::new())?;
            let defs: Vec<&PathBuf> = files.iter().filter(|p| is_taskdef(p)).collect();
            if !defs.is_empty() {
                for d in defs {
                    match super::taskdef::load_if_checkable(d, prp)? {
                        super::taskdef::Loaded::Task(t) => tasks.push(t),
                        super::taskdef::Loaded::NothingCheckable => eprintln!(
                            "mpv: warning: {}: left out: no property mpv can check",
                            d.display()
                        ),
                    }
                }
            } else {
                for m in files.iter().filter(|p| is_module(p)) {
                    tasks.push(module_task(m, prp)?);
                }
            }
        } else if is_taskdef(path) {
            tasks.push(super::taskdef::load(path, prp)?);
        } else if path.is_file() {
            tasks.push(module_task(path, prp)?);
        } else {
            return Err(Error::io(
                path,
                std::io::Error::new(std::io::ErrorKind::NotFound, "no such file or directory"),
            ));
        }
    }
    // A file named twice (`x.c` and `./x.c`, or in two scanned trees) is
    // one task.
    let mut keys = HashSet::new();
    tasks.retain(|t| keys.insert(t.key.clone()));
    Ok(tasks)
}

fn module_task(path: &Path, prp: &[PathBuf]) -> Result<Task> {
    if prp.is_empty() {
        return Err(Error::Usage(format!(
            "{}: a module needs property files: give --prp FILE",
            path.display()
        )));
    }
    let file = path.display().to_string();
    let prp_names: Vec<String> = prp.iter().map(|p| p.display().to_string()).collect();
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let mut expected = Vec::new();
    if let Some(v) = verdict_from_name(name) {
        for id in property_ids(prp)? {
            expected.push(Expected {
                rule: "-".into(),
                property: Some(id),
                verdict: v,
            });
        }
    }
    Ok(Task {
        key: Task::make_key(&file, None, &prp_names),
        set: path
            .parent()
            .and_then(|d| d.file_name())
            .and_then(|n| n.to_str())
            .unwrap_or(".")
            .to_string(),
        file,
        path: path.to_path_buf(),
        rule: None,
        prp: prp.to_vec(),
        data_model: None,
        library_select: Vec::new(),
        expected,
    })
}

/// The property ids of property files.
pub fn property_ids(prp: &[PathBuf]) -> Result<Vec<String>> {
    let mut ids = Vec::new();
    for p in prp {
        ids.extend(crate::spec::prp::load(p)?.into_iter().map(|p| p.id));
    }
    Ok(ids)
}

/// Rejects two tasks with the same key (the results could not tell them apart).
pub fn check_unique(tasks: &[Task]) -> Result<()> {
    let mut seen = BTreeSet::new();
    for t in tasks {
        if !seen.insert(t.key.as_str()) {
            return Err(Error::Usage(format!(
                "task `{}` is listed twice (same file, rule and property files)",
                t.key
            )));
        }
    }
    Ok(())
}

/// SplitMix64: a small fixed-seed generator, so a sample is the same on
/// every machine and every run.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0); the modulo bias is negligible for task counts.
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// `n` tasks chosen with `seed`, stratified by set: every set gets at least
/// one task when `n` allows, the rest is split in proportion to the sets'
/// sizes (largest remainders first). The sample keeps the input order.
pub fn sample(tasks: Vec<Task>, n: usize, seed: u64) -> Vec<Task> {
    if n >= tasks.len() {
        return tasks;
    }
    let mut by_set: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, t) in tasks.iter().enumerate() {
        by_set.entry(t.set.as_str()).or_default().push(i);
    }
    let sets: Vec<(&str, Vec<usize>)> = by_set.into_iter().collect();
    let mut quota = vec![0usize; sets.len()];
    let mut left = n;
    if n >= sets.len() {
        quota.iter_mut().for_each(|q| *q = 1);
        left -= sets.len();
    }
    // Proportional split of what is left over the tasks not yet allotted.
    let pool: usize = sets.iter().zip(&quota).map(|((_, v), q)| v.len() - q).sum();
    if left > 0 && pool > 0 {
        let mut rems: Vec<(usize, usize)> = Vec::new();
        let mut given = 0;
        for (i, (_, v)) in sets.iter().enumerate() {
            let room = v.len() - quota[i];
            let share = left * room;
            quota[i] += share / pool;
            given += share / pool;
            rems.push((share % pool, i));
        }
        rems.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        for (_, i) in rems {
            if given == left {
                break;
            }
            if quota[i] < sets[i].1.len() {
                quota[i] += 1;
                given += 1;
            }
        }
    }
    let mut rng = SplitMix64(seed);
    let mut keep = vec![false; tasks.len()];
    for ((_, idx), q) in sets.iter().zip(&quota) {
        let mut idx = idx.clone();
        // Partial Fisher-Yates: the first q positions are a uniform sample.
        for k in 0..*q {
            let j = k + rng.below(idx.len() - k);
            idx.swap(k, j);
            keep[idx[k]] = true;
        }
    }
    tasks
        .into_iter()
        .zip(keep)
        .filter_map(|(t, k)| k.then_some(t))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(set: &str, i: usize) -> Task {
        Task {
            key: format!("{set}/{i}"),
            file: format!("{set}/{i}.c"),
            path: PathBuf::from(format!("{set}/{i}.c")),
            set: set.into(),
            rule: None,
            prp: vec![],
            data_model: None,
            library_select: vec![],
            expected: vec![],
        }
    }

    fn tasks() -> Vec<Task> {
        let mut v = Vec::new();
        for i in 0..90 {
            v.push(task("big", i));
        }
        for i in 0..9 {
            v.push(task("small", i));
        }
        v.push(task("tiny", 0));
        v
    }

    #[test]
    fn sample_is_stratified_and_reproducible() {
        let s = sample(tasks(), 10, 7);
        assert_eq!(s.len(), 10);
        let count = |set: &str| s.iter().filter(|t| t.set == set).count();
        assert_eq!(count("tiny"), 1, "every set is represented");
        assert!(count("big") >= 7, "big sets get most: {}", count("big"));
        assert!(count("small") >= 1);
        let again: Vec<String> = sample(tasks(), 10, 7).into_iter().map(|t| t.key).collect();
        assert_eq!(again, s.iter().map(|t| t.key.clone()).collect::<Vec<_>>());
        let other: Vec<String> = sample(tasks(), 10, 8).into_iter().map(|t| t.key).collect();
        assert_ne!(other, again, "the seed matters");
    }

    #[test]
    fn sample_keeps_order_and_handles_small_and_large_n() {
        let s = sample(tasks(), 2, 1);
        assert_eq!(s.len(), 2);
        assert_eq!(sample(tasks(), 500, 1).len(), 100);
        let s = sample(tasks(), 50, 3);
        assert_eq!(s.len(), 50);
        let pos: Vec<usize> = s
            .iter()
            .map(|t| tasks().iter().position(|u| u.key == t.key).unwrap())
            .collect();
        assert!(pos.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn verdicts_from_file_names() {
        use ExpectedVerdict::*;
        assert_eq!(verdict_from_name("1_3.c_false.cil.c"), Some(False));
        assert_eq!(verdict_from_name("a.ko_true.cil.out.i.pp.i"), Some(True));
        assert_eq!(verdict_from_name("x_false-unreach-call.i"), Some(False));
        assert_eq!(verdict_from_name("m.08_1a.cil_unknown.i"), Some(Unknown));
        assert_eq!(verdict_from_name("x_truex.c"), None);
        assert_eq!(verdict_from_name("plain.c"), None);
    }

    #[test]
    fn rule_property_matching() {
        assert!(property_matches_rule("32_1", "32_1"));
        assert!(property_matches_rule("ldv:32_1", "32_1"));
        assert!(property_matches_rule("linux/32_1", "32_1"));
        assert!(!property_matches_rule("ldv:132_1", "32_1"));
        assert!(!property_matches_rule("label:LDV_ERROR", "32_1"));
    }

    #[test]
    fn duplicate_keys_are_rejected() {
        let v = vec![task("a", 1), task("a", 1)];
        assert!(check_unique(&v).is_err());
        assert!(check_unique(&tasks()).is_ok());
    }
}
