//! TSV manifests (tab-separated, one header line, paths relative to a root
//! directory). Two shapes are accepted, told apart by the header:
//!
//! * single-rule: `set  task  rule  property_file  expected` (columns by
//!   name, any order, extra columns ignored): one task per row, verified
//!   against `property_file`; `expected` is `true`, `false` or `unknown`.
//!   An optional `data_model` column (`ILP32`, `LP64`, or `-`) gives the
//!   task's data model (`mpv verify --data-model`).
//! * multi-rule: `revision  input  RULE...`: one task per row, verified
//!   against the `ALL.prp` of the input's set (the first directory of
//!   `input`). Each rule column holds that rule's expected verdict (`-` = not
//!   checked). The rule whose name appears in the input's file name
//!   (`x.08_1a.cil_unknown.i`) is instrumented in the input, so its verdict is
//!   the one of `ALL.prp`'s property; the other rules are for mpv's own rule
//!   specifications, passed to `mpv verify` with the batch's verify options,
//!   and matched by [`super::tasks::property_matches_rule`].

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::tasks::{property_ids, Expected, ExpectedVerdict, Task};
use crate::{Error, Result};

fn at(file: &Path, line: usize, msg: impl std::fmt::Display) -> Error {
    Error::Usage(format!("{}:{line}: {msg}", file.display()))
}

/// Reads a manifest; task paths are relative to `root`. Every named file
/// must exist (checked now, not hours into a batch).
pub fn load(manifest: &Path, root: &Path) -> Result<Vec<Task>> {
    let text = std::fs::read_to_string(manifest).map_err(|e| Error::io(manifest, e))?;
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
    let Some((_, header)) = lines.next() else {
        return Err(at(manifest, 1, "empty manifest: no header line"));
    };
    let cols: Vec<&str> = header.split('\t').map(str::trim).collect();
    let rows = lines.filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'));
    let mut prp_ids = PrpCache::default();
    if cols.len() >= 2 && cols[0] == "revision" && cols[1] == "input" {
        let rules: Vec<&str> = cols[2..].to_vec();
        rows.map(|(n, l)| multi_row(manifest, root, n, l, &rules, &mut prp_ids))
            .collect()
    } else {
        let pos = |name: &str| {
            cols.iter().position(|c| *c == name).ok_or_else(|| {
                at(
                    manifest,
                    1,
                    format!(
                        "header has no `{name}` column: a manifest starts with \
                         `set task rule property_file expected` or `revision input RULE...`"
                    ),
                )
            })
        };
        let idx = SingleCols {
            set: pos("set")?,
            task: pos("task")?,
            rule: pos("rule")?,
            prp: pos("property_file")?,
            expected: pos("expected")?,
            data_model: cols.iter().position(|c| *c == "data_model"),
            width: cols.len(),
        };
        rows.map(|(n, l)| single_row(manifest, root, n, l, &idx, &mut prp_ids))
            .collect()
    }
}

struct SingleCols {
    set: usize,
    task: usize,
    rule: usize,
    prp: usize,
    expected: usize,
    data_model: Option<usize>,
    width: usize,
}

/// Property ids per property file, read once per file.
#[derive(Default)]
struct PrpCache(HashMap<PathBuf, Vec<String>>);

impl PrpCache {
    fn ids(&mut self, prp: &Path) -> Result<&[String]> {
        if !self.0.contains_key(prp) {
            let ids = property_ids(&[prp.to_path_buf()])?;
            self.0.insert(prp.to_path_buf(), ids);
        }
        Ok(&self.0[prp])
    }
}

fn existing(manifest: &Path, n: usize, root: &Path, rel: &str) -> Result<PathBuf> {
    if rel.is_empty() {
        return Err(at(manifest, n, "empty path"));
    }
    let p = root.join(rel);
    if !p.is_file() {
        return Err(at(
            manifest,
            n,
            format!(
                "{} does not exist (paths are relative to --root {})",
                p.display(),
                root.display()
            ),
        ));
    }
    Ok(p)
}

fn single_row(
    manifest: &Path,
    root: &Path,
    n: usize,
    line: &str,
    c: &SingleCols,
    cache: &mut PrpCache,
) -> Result<Task> {
    let f: Vec<&str> = line.split('\t').map(str::trim).collect();
    if f.len() < c.width {
        return Err(at(
            manifest,
            n,
            format!("{} columns, the header has {}", f.len(), c.width),
        ));
    }
    let (file, rule, prp_rel) = (f[c.task], f[c.rule], f[c.prp]);
    let path = existing(manifest, n, root, file)?;
    let prp = existing(manifest, n, root, prp_rel)?;
    let verdict = ExpectedVerdict::parse_cell(f[c.expected]).map_err(|e| at(manifest, n, e))?;
    let ids = cache.ids(&prp).map_err(|e| at(manifest, n, e))?;
    let rule_opt = (rule != "-" && !rule.is_empty()).then(|| rule.to_string());
    let data_model = match c.data_model.map(|k| f[k]) {
        None | Some("-" | "") => None,
        Some(name) => Some(crate::ir::DataModel::from_name(name).ok_or_else(|| {
            at(
                manifest,
                n,
                format!("data_model `{name}`: write ILP32, LP64 or -"),
            )
        })?),
    };
    let expected = verdict
        .map(|v| Expected {
            rule: rule_opt.clone().unwrap_or_else(|| "-".into()),
            property: (ids.len() == 1).then(|| ids[0].clone()),
            verdict: v,
        })
        .into_iter()
        .collect();
    Ok(Task {
        key: Task::make_key(file, rule_opt.as_deref(), &[prp_rel.to_string()]),
        file: file.to_string(),
        path,
        set: f[c.set].to_string(),
        rule: rule_opt,
        prp: vec![prp],
        data_model,
        library_select: Vec::new(),
        expected,
    })
}

fn multi_row(
    manifest: &Path,
    root: &Path,
    n: usize,
    line: &str,
    rules: &[&str],
    cache: &mut PrpCache,
) -> Result<Task> {
    let f: Vec<&str> = line.split('\t').map(str::trim).collect();
    if f.len() != rules.len() + 2 {
        return Err(at(
            manifest,
            n,
            format!("{} columns, the header has {}", f.len(), rules.len() + 2),
        ));
    }
    let file = f[1];
    let path = existing(manifest, n, root, file)?;
    let set = file.split('/').next().unwrap_or("").to_string();
    let prp_rel = format!("{set}/ALL.prp");
    let prp = existing(manifest, n, root, &prp_rel)?;
    let ids = cache.ids(&prp).map_err(|e| at(manifest, n, e))?.to_vec();
    let name = Path::new(file)
        .file_name()
        .and_then(|s| s.to_str())
        .unwrap_or("");
    let mut expected = Vec::new();
    // The instrumented rule is the input's error label; the others LDV
    // checked (a verdict cell, not `-`) are checked with mpv's rules.
    let library_rules: Vec<String> = rules
        .iter()
        .zip(&f[2..])
        .filter(|(rule, cell)| !name.contains(&format!(".{rule}.")) && **cell != "-")
        .map(|(rule, _)| rule.to_string())
        .collect();
    for (rule, cell) in rules.iter().zip(&f[2..]) {
        let Some(v) = ExpectedVerdict::parse_cell(cell)
            .map_err(|e| at(manifest, n, format!("column {rule}: {e}")))?
        else {
            continue;
        };
        let instrumented = name.contains(&format!(".{rule}."));
        expected.push(Expected {
            rule: rule.to_string(),
            property: (instrumented && ids.len() == 1).then(|| ids[0].clone()),
            verdict: v,
        });
    }
    Ok(Task {
        key: Task::make_key(file, Some("*"), &[prp_rel]),
        file: file.to_string(),
        path,
        set,
        rule: None,
        prp: vec![prp],
        data_model: None,
        library_select: if library_rules.is_empty() {
            Vec::new()
        } else {
            ids.iter().cloned().chain(library_rules).collect()
        },
        expected,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(files: &[(&str, &str)]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "mpv-manifest-{}-{}",
            std::process::id(),
            files[0].0.replace('/', "_")
        ));
        let _ = std::fs::remove_dir_all(&dir);
        for (name, text) in files {
            let p = dir.join(name);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        dir
    }

    const PRP: &str = "CHECK( init(main()), LTL(G ! label(ERROR)) )\n";

    #[test]
    fn single_shape() {
        let d = fixture(&[
            (
                "s.tsv",
                "set\ttask\trule\tproperty_file\texpected\n\
                 a\ta/x_true.c\t32_1\ta/ALL.prp\ttrue\n\
                 a\ta/y.c\t-\ta/ALL.prp\tfalse\n",
            ),
            ("a/ALL.prp", PRP),
            ("a/x_true.c", ""),
            ("a/y.c", ""),
        ]);
        let t = load(&d.join("s.tsv"), &d).unwrap();
        assert_eq!(t.len(), 2);
        assert_eq!(t[0].key, "a/x_true.c|32_1|a/ALL.prp");
        assert_eq!(t[0].rule.as_deref(), Some("32_1"));
        assert_eq!(t[0].expected[0].property.as_deref(), Some("label:ERROR"));
        assert_eq!(t[0].expected[0].verdict, ExpectedVerdict::True);
        assert_eq!(t[1].rule, None);
        assert_eq!(t[1].expected[0].rule, "-");
        assert_eq!(t[1].path, d.join("a/y.c"));
        assert_eq!(t[0].data_model, None, "no data_model column");
    }

    #[test]
    fn a_data_model_column_gives_each_task_its_model() {
        let d = fixture(&[
            (
                "d.tsv",
                "set\ttask\trule\tproperty_file\texpected\tdata_model\n\
                 a\ta/x.c\t-\ta/ALL.prp\ttrue\tILP32\n\
                 a\ta/x.c\t-\ta/ALL.prp\ttrue\t-\n\
                 a\ta/x.c\t-\ta/ALL.prp\ttrue\tILP64\n",
            ),
            ("a/ALL.prp", PRP),
            ("a/x.c", ""),
        ]);
        let e = load(&d.join("d.tsv"), &d).unwrap_err().to_string();
        assert!(e.contains("d.tsv:4:") && e.contains("ILP64"), "{e}");
        let text = std::fs::read_to_string(d.join("d.tsv")).unwrap();
        let two: Vec<&str> = text.lines().take(3).collect();
        std::fs::write(d.join("d.tsv"), two.join("\n")).unwrap();
        let t = load(&d.join("d.tsv"), &d).unwrap();
        assert_eq!(t[0].data_model, Some(crate::ir::DataModel::Ilp32));
        assert_eq!(t[1].data_model, None);
    }

    #[test]
    fn multi_shape() {
        let d = fixture(&[
            (
                "m.tsv",
                "revision\tinput\t08_1a\t32_1\t43_1a\n\
                 r1\trev/r1.08_1a.cil_true.i\ttrue\tfalse\t-\n",
            ),
            (
                "rev/ALL.prp",
                "CHECK( init(main()), LTL(G ! label(LDV_ERROR)) )\n",
            ),
            ("rev/r1.08_1a.cil_true.i", ""),
        ]);
        let t = load(&d.join("m.tsv"), &d).unwrap();
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].set, "rev");
        assert_eq!(t[0].prp, vec![d.join("rev/ALL.prp")]);
        let e = &t[0].expected;
        assert_eq!(e.len(), 2, "`-` is not checked");
        assert_eq!(e[0].rule, "08_1a");
        assert_eq!(e[0].property.as_deref(), Some("label:LDV_ERROR"));
        assert_eq!(e[1].rule, "32_1");
        assert_eq!(e[1].property, None);
        assert_eq!(e[1].verdict, ExpectedVerdict::False);
    }

    #[test]
    fn errors_name_file_and_line() {
        let d = fixture(&[
            (
                "bad.tsv",
                "set\ttask\trule\tproperty_file\texpected\n\
                 a\ta/x.c\t32_1\ta/ALL.prp\ttrue\n\
                 a\ta/x.c\t32_1\ta/ALL.prp\tmaybe\n",
            ),
            ("a/ALL.prp", PRP),
            ("a/x.c", ""),
        ]);
        let e = load(&d.join("bad.tsv"), &d).unwrap_err().to_string();
        assert!(e.contains("bad.tsv:3:") && e.contains("maybe"), "{e}");

        let d = fixture(&[
            (
                "missing.tsv",
                "set\ttask\trule\tproperty_file\texpected\na\ta/nope.c\t-\ta/ALL.prp\ttrue\n",
            ),
            ("a/ALL.prp", PRP),
        ]);
        let e = load(&d.join("missing.tsv"), &d).unwrap_err().to_string();
        assert!(e.contains("missing.tsv:2:") && e.contains("nope.c"), "{e}");

        let d = fixture(&[("short.tsv", "set\ttask\nx\n")]);
        let e = load(&d.join("short.tsv"), &d).unwrap_err().to_string();
        assert!(e.contains("short.tsv:1:") && e.contains("rule"), "{e}");

        let d = fixture(&[
            ("cols.tsv", "revision\tinput\t32_1\nr\trev/x.i\n"),
            ("rev/x.i", ""),
        ]);
        let e = load(&d.join("cols.tsv"), &d).unwrap_err().to_string();
        assert!(e.contains("cols.tsv:2:") && e.contains("columns"), "{e}");
    }
}
