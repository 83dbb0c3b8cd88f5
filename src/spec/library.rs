//! The bundled rule library (`properties/*.spec`, embedded in the binary)
//! and loading of rule files and directories given on the command line.

use std::path::Path;

use super::automaton::{from_text, SpecAutomaton};
use crate::{Error, Result};

/// `(file name, text)` of every bundled rule, sorted by file name.
pub const BUNDLED: &[(&str, &str)] = &[
    ("08_1a.spec", include_str!("../../properties/08_1a.spec")),
    ("101_1a.spec", include_str!("../../properties/101_1a.spec")),
    ("106_1a.spec", include_str!("../../properties/106_1a.spec")),
    ("10_1a.spec", include_str!("../../properties/10_1a.spec")),
    ("118_1a.spec", include_str!("../../properties/118_1a.spec")),
    ("129_1a.spec", include_str!("../../properties/129_1a.spec")),
    ("132_1a.spec", include_str!("../../properties/132_1a.spec")),
    ("134_1a.spec", include_str!("../../properties/134_1a.spec")),
    ("147_1a.spec", include_str!("../../properties/147_1a.spec")),
    ("32_1.spec", include_str!("../../properties/32_1.spec")),
    ("32_1a.spec", include_str!("../../properties/32_1a.spec")),
    ("32_7a.spec", include_str!("../../properties/32_7a.spec")),
    ("39_7a.spec", include_str!("../../properties/39_7a.spec")),
    ("43_1a.spec", include_str!("../../properties/43_1a.spec")),
    ("68_1.spec", include_str!("../../properties/68_1.spec")),
    ("68_1a.spec", include_str!("../../properties/68_1a.spec")),
    ("68_1b.spec", include_str!("../../properties/68_1b.spec")),
    ("77_1a.spec", include_str!("../../properties/77_1a.spec")),
];

/// The bundled rules, compiled.
pub fn bundled() -> Result<Vec<SpecAutomaton>> {
    BUNDLED
        .iter()
        .map(|(name, text)| from_text(&format!("properties/{name}"), text))
        .collect()
}

/// Loads a rule file (`.spec`), a CPAchecker automaton (`.spc`), or every
/// `.spec` file of a directory (sorted by name).
pub fn load(path: &Path) -> Result<Vec<SpecAutomaton>> {
    if path.is_dir() {
        let rd = std::fs::read_dir(path).map_err(|e| Error::io(path, e))?;
        let mut files: Vec<_> = rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "spec"))
            .collect();
        files.sort();
        if files.is_empty() {
            return Err(Error::Usage(format!(
                "{}: no `.spec` rule files in this directory",
                path.display()
            )));
        }
        let mut out = Vec::new();
        for f in files {
            out.extend(load(&f)?);
        }
        return Ok(out);
    }
    match path.extension().and_then(|e| e.to_str()) {
        Some("spc") => super::spc::load(path),
        Some("spec") => {
            let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
            Ok(vec![from_text(&path.display().to_string(), &text)?])
        }
        _ => Err(Error::Usage(format!(
            "{}: not a rule file mpv reads (`.spec` rule, `.spc` CPAchecker automaton, or a directory of `.spec` files)",
            path.display()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_file_is_bundled_and_compiles() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("properties");
        let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".spec"))
            .collect();
        on_disk.sort();
        let bundled: Vec<String> = BUNDLED.iter().map(|(n, _)| n.to_string()).collect();
        assert_eq!(on_disk, bundled, "properties/ and BUNDLED disagree");
        let rules = bundled_or_panic();
        let mut ids: Vec<&str> = rules
            .iter()
            .flat_map(|a| a.properties.iter().map(|p| p.id.as_str()))
            .collect();
        ids.sort();
        let n = ids.len();
        ids.dedup();
        assert_eq!(n, ids.len(), "rule ids are unique");
        for want in [
            "08_1a", "10_1a", "32_1a", "43_1a", "68_1a", "68_1b", "77_1a", "101_1a", "106_1a",
            "118_1a", "129_1a", "132_1a", "134_1a", "147_1a", "32_1", "32_7a", "39_7a", "68_1",
        ] {
            assert!(ids.contains(&want), "rule {want} missing");
        }
    }

    fn bundled_or_panic() -> Vec<SpecAutomaton> {
        match bundled() {
            Ok(r) => r,
            Err(e) => panic!("{e}"),
        }
    }
}
