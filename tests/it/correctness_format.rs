//! The format check of correctness witnesses: SV-COMP YAML 2.0
//! `invariant_set` entries, with the metadata of the violation witnesses
//! (`witness_format.rs`), invariants at loops of the input file, their
//! values C expressions.

use std::path::Path;

use serde_yaml_ng::Value;

use crate::witness_format::{check_location, entry_of, get, lines_of, string};

/// Checks a YAML correctness witness of `input` (format 2.0,
/// `invariant_set`): the metadata, and each invariant's `type`
/// (`loop_invariant` at a loop's keyword, or `location_invariant`),
/// location inside the input file, `value` a C expression (it parses) and
/// `format`. Returns the invariants' lines and values.
pub fn check_invariant_set(text: &str, input: &Path) -> Result<Vec<(u64, String)>, String> {
    let doc: Value = serde_yaml_ng::from_str(text).map_err(|e| e.to_string())?;
    let (e, files) = entry_of(&doc, "invariant_set", input)?;
    let content = get(&e, "content", "entry")?
        .as_sequence()
        .ok_or("content: not a sequence")?;
    let mut out = Vec::new();
    for (i, item) in content.iter().enumerate() {
        let at = format!("invariant {i}");
        let inv = get(item, "invariant", &at)?;
        let kind = string(inv, "type", &at)?;
        if !["loop_invariant", "location_invariant"].contains(&kind) {
            return Err(format!("{at}: type {kind}"));
        }
        let loc = get(inv, "location", &at)?;
        check_location(loc, &files, &format!("{at}.location"))?;
        let line = get(loc, "line", &at)?.as_u64().unwrap_or(0);
        let column = get(loc, "column", &at)?
            .as_u64()
            .ok_or(format!("{at}: no column"))?;
        string(loc, "function", &at)?;
        if kind == "loop_invariant" {
            let text = &lines_of(string(loc, "file_name", &at)?)?[line as usize - 1];
            let word: String = text[column as usize - 1..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !["while", "for", "do"].contains(&word.as_str()) {
                return Err(format!("{at}: no loop at {line}:{column}: {text}"));
            }
        }
        if string(inv, "format", &at)? != "c_expression" {
            return Err(format!("{at}: format"));
        }
        let value = string(inv, "value", &at)?;
        let unit = format!("int mpv_check(void) {{ return {value}; }}");
        let config = lang_c::driver::Config::with_gcc();
        lang_c::driver::parse_preprocessed(&config, unit)
            .map_err(|e| format!("{at}: `{value}` is no C expression: {e:?}"))?;
        out.push((line, value.to_string()));
    }
    Ok(out)
}
