//! SV-COMP task-definition files (format 2.0):
//!
//! ```yaml
//! format_version: '2.0'
//! input_files: 'module.i'          # one file (a one-element list is fine too)
//! properties:
//!   - property_file: ../properties/unreach-call.prp
//!     expected_verdict: false
//! ```
//!
//! Paths are relative to the `.yml` file. A property file mpv cannot read
//! (memory safety, termination, ...) is left out of the task with a warning;
//! a task left with no property is an error. The rule of each expected
//! verdict is the property file's stem (`unreach-call`).

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::tasks::{Expected, ExpectedVerdict, Task};
use crate::{Error, Result};

#[derive(Deserialize)]
struct TaskDef {
    input_files: InputFiles,
    #[serde(default)]
    properties: Vec<PropertyDef>,
    #[serde(default)]
    options: Options,
}

/// The definition's `options`: mpv reads the data model.
#[derive(Deserialize, Default)]
struct Options {
    #[serde(default, deserialize_with = "data_model")]
    data_model: Option<crate::ir::DataModel>,
}

/// `ILP32` or `LP64`, as SV-COMP writes them.
fn data_model<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<Option<crate::ir::DataModel>, D::Error> {
    let s = String::deserialize(d)?;
    match crate::ir::DataModel::from_name(&s) {
        Some(m) => Ok(Some(m)),
        None => Err(serde::de::Error::custom(format!(
            "data_model `{s}`: mpv knows ILP32 and LP64"
        ))),
    }
}

#[derive(Deserialize)]
#[serde(untagged)]
enum InputFiles {
    One(String),
    Many(Vec<String>),
}

#[derive(Deserialize)]
struct PropertyDef {
    property_file: String,
    expected_verdict: Option<bool>,
}

/// What a task definition holds for mpv.
#[derive(Debug)]
pub enum Loaded {
    Task(Task),
    /// Only properties mpv cannot check (memory safety, termination, ...).
    NothingCheckable,
}

/// Reads one task definition; `extra_prp` (the batch's `--prp`) are added to
/// the definition's property files.
pub fn load(path: &Path, extra_prp: &[PathBuf]) -> Result<Task> {
    match load_if_checkable(path, extra_prp)? {
        Loaded::Task(t) => Ok(t),
        Loaded::NothingCheckable => Err(Error::Usage(format!(
            "{}: no property mpv can check (give --prp FILE to add one)",
            path.display()
        ))),
    }
}

/// [`load`], telling a definition with nothing mpv can check apart from an
/// error (a directory scan leaves such definitions out with a warning).
pub fn load_if_checkable(path: &Path, extra_prp: &[PathBuf]) -> Result<Loaded> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let def: TaskDef = serde_yaml_ng::from_str(&text).map_err(|e| {
        let line = e.location().map(|l| l.line()).unwrap_or(1);
        Error::Usage(format!(
            "{}:{line}: not an SV-COMP task definition: {e}",
            path.display()
        ))
    })?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let input = match def.input_files {
        InputFiles::One(f) => f,
        InputFiles::Many(v) if v.len() == 1 => v.into_iter().next().unwrap_or_default(),
        InputFiles::Many(v) => {
            return Err(Error::Usage(format!(
                "{}: {} input files: mpv verifies one file per task",
                path.display(),
                v.len()
            )))
        }
    };
    let module = dir.join(&input);
    if !module.is_file() {
        return Err(Error::Usage(format!(
            "{}: input file {} does not exist",
            path.display(),
            module.display()
        )));
    }
    let mut prp = Vec::new();
    let mut prp_names = Vec::new();
    let mut expected = Vec::new();
    for p in &def.properties {
        let file = dir.join(&p.property_file);
        let props = match crate::spec::prp::load(&file) {
            Ok(props) => props,
            Err(e) => {
                eprintln!(
                    "mpv: warning: {}: property {} left out: {e}",
                    path.display(),
                    p.property_file
                );
                continue;
            }
        };
        let rule = Path::new(&p.property_file)
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("-")
            .to_string();
        if let Some(v) = p.expected_verdict {
            let verdict = if v {
                ExpectedVerdict::True
            } else {
                ExpectedVerdict::False
            };
            for prop in props {
                expected.push(Expected {
                    rule: rule.clone(),
                    property: Some(prop.id),
                    verdict,
                });
            }
        }
        prp.push(file);
        prp_names.push(p.property_file.clone());
    }
    for p in extra_prp {
        prp.push(p.clone());
        prp_names.push(p.display().to_string());
    }
    if prp.is_empty() {
        return Ok(Loaded::NothingCheckable);
    }
    let file = path.display().to_string();
    Ok(Loaded::Task(Task {
        key: Task::make_key(&file, None, &prp_names),
        set: dir
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or(".")
            .to_string(),
        file,
        path: module,
        rule: None,
        prp,
        data_model: def.options.data_model,
        library_select: Vec::new(),
        expected,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("mpv-taskdef-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("props")).unwrap();
        std::fs::write(
            d.join("props/unreach-call.prp"),
            "CHECK( init(main()), LTL(G ! call(reach_error())) )\n",
        )
        .unwrap();
        std::fs::write(
            d.join("props/valid-memsafety.prp"),
            "CHECK( init(main()), LTL(G valid-free) )\n",
        )
        .unwrap();
        std::fs::write(d.join("m.i"), "int main(void) { return 0; }\n").unwrap();
        d
    }

    #[test]
    fn reads_a_task_definition() {
        let d = dir("ok");
        std::fs::write(
            d.join("m.yml"),
            "format_version: '2.0'\ninput_files: 'm.i'\nproperties:\n  \
             - property_file: props/unreach-call.prp\n    expected_verdict: false\n  \
             - property_file: props/valid-memsafety.prp\n    expected_verdict: true\n\
             options:\n  language: C\n  data_model: LP64\n",
        )
        .unwrap();
        let t = load(&d.join("m.yml"), &[]).unwrap();
        assert_eq!(t.path, d.join("m.i"));
        assert_eq!(
            t.prp,
            vec![d.join("props/unreach-call.prp")],
            "memsafety left out"
        );
        assert_eq!(t.expected.len(), 1);
        assert_eq!(t.expected[0].rule, "unreach-call");
        assert_eq!(t.expected[0].property.as_deref(), Some("call:reach_error"));
        assert_eq!(t.expected[0].verdict, ExpectedVerdict::False);
        assert_eq!(t.data_model, Some(crate::ir::DataModel::Lp64));
    }

    #[test]
    fn the_data_model_is_read_and_an_unknown_one_named() {
        let d = dir("model");
        let def = |model: &str| {
            format!(
                "format_version: '2.0'\ninput_files: 'm.i'\nproperties:\n  \
                 - property_file: props/unreach-call.prp\n\
                 options:\n  language: C\n  data_model: {model}\n"
            )
        };
        std::fs::write(d.join("i.yml"), def("ILP32")).unwrap();
        let t = load(&d.join("i.yml"), &[]).unwrap();
        assert_eq!(t.data_model, Some(crate::ir::DataModel::Ilp32));
        std::fs::write(d.join("x.yml"), def("LLP64")).unwrap();
        let e = load(&d.join("x.yml"), &[]).unwrap_err().to_string();
        assert!(e.contains("x.yml:") && e.contains("LLP64"), "{e}");
        std::fs::write(
            d.join("n.yml"),
            "input_files: 'm.i'\nproperties:\n  - property_file: props/unreach-call.prp\n",
        )
        .unwrap();
        assert_eq!(load(&d.join("n.yml"), &[]).unwrap().data_model, None);
    }

    #[test]
    fn bad_definitions_are_errors() {
        let d = dir("bad");
        std::fs::write(d.join("a.yml"), "input_files: [m.i, m.i]\n").unwrap();
        assert!(load(&d.join("a.yml"), &[]).is_err());
        std::fs::write(d.join("b.yml"), "properties: 3\n").unwrap();
        let e = load(&d.join("b.yml"), &[]).unwrap_err().to_string();
        assert!(e.contains("b.yml:1:"), "{e}");
        std::fs::write(
            d.join("c.yml"),
            "input_files: m.i\nproperties:\n  - property_file: props/valid-memsafety.prp\n",
        )
        .unwrap();
        assert!(
            load(&d.join("c.yml"), &[]).is_err(),
            "no checkable property"
        );
        std::fs::write(d.join("e.yml"), "input_files: gone.i\n").unwrap();
        assert!(load(&d.join("e.yml"), &[]).is_err());
    }
}
