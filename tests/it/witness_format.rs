//! The format check of witnesses, shared by the witness tests and
//! `benches/witnesses.rs`: violation witnesses in SV-COMP YAML 2.0
//! (required keys and their types; every segment ends in exactly one
//! `follow` waypoint, the last one in the `target`; locations inside the
//! input file; the input's SHA-256) and GraphML 1.0 (the graph keys, one
//! entry and one violation node, edges between declared nodes at lines of
//! the input file). The metadata and location checks serve the correctness
//! witnesses' too (`correctness_format.rs`).

use std::path::Path;

use serde_yaml_ng::Value;
use sha2::{Digest, Sha256};

fn sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

pub fn get<'a>(v: &'a Value, key: &str, at: &str) -> Result<&'a Value, String> {
    v.get(key).ok_or_else(|| format!("{at}: no `{key}`"))
}

pub fn string<'a>(v: &'a Value, key: &str, at: &str) -> Result<&'a str, String> {
    get(v, key, at)?
        .as_str()
        .ok_or_else(|| format!("{at}.{key}: not a string"))
}

/// The input file's lines, by the name a witness gives it.
pub fn lines_of(name: &str) -> Result<Vec<String>, String> {
    let text = std::fs::read_to_string(name).map_err(|e| format!("{name}: {e}"))?;
    Ok(text.lines().map(str::to_string).collect())
}

pub fn check_location(loc: &Value, files: &[String], at: &str) -> Result<(), String> {
    let file = string(loc, "file_name", at)?;
    if !files.iter().any(|f| f == file) {
        return Err(format!("{at}: file {file} is not an input file"));
    }
    let line = get(loc, "line", at)?
        .as_u64()
        .ok_or(format!("{at}.line: not an integer"))?;
    let lines = lines_of(file)?;
    if line == 0 || line as usize > lines.len() {
        return Err(format!("{at}: line {line} is not in {file}"));
    }
    if let Some(c) = loc.get("column") {
        let c = c.as_u64().ok_or(format!("{at}.column: not an integer"))?;
        if c == 0 || c as usize > lines[line as usize - 1].len() + 1 {
            return Err(format!("{at}: column {c} is not on line {line}"));
        }
    }
    if let Some(f) = loc.get("function") {
        f.as_str().ok_or(format!("{at}.function: not a string"))?;
    }
    Ok(())
}

fn check_waypoint(w: &Value, files: &[String], at: &str) -> Result<(String, String), String> {
    let kind = string(w, "type", at)?;
    let action = string(w, "action", at)?;
    let kinds = [
        "assumption",
        "branching",
        "function_enter",
        "function_return",
        "target",
    ];
    if !kinds.contains(&kind) || !["follow", "avoid"].contains(&action) {
        return Err(format!("{at}: type {kind} / action {action}"));
    }
    check_location(get(w, "location", at)?, files, &format!("{at}.location"))?;
    match w.get("constraint") {
        Some(c) => {
            let value = string(c, "value", at)?;
            let format = c
                .get("format")
                .and_then(Value::as_str)
                .unwrap_or("c_expression");
            if !["c_expression", "acsl_expression"].contains(&format) {
                return Err(format!("{at}: constraint format {format}"));
            }
            if kind == "branching" && !["true", "false"].contains(&value) {
                return Err(format!("{at}: branching constraint {value}"));
            }
            if kind == "target" {
                return Err(format!("{at}: a target has no constraint"));
            }
        }
        None if ["assumption", "branching"].contains(&kind) => {
            return Err(format!("{at}: {kind} without constraint"))
        }
        None => {}
    }
    Ok((kind.to_string(), action.to_string()))
}

/// The one entry of a YAML witness of `input`, of `entry_type`, with its
/// metadata checked; the input files it names.
pub fn entry_of(
    doc: &Value,
    entry_type: &str,
    input: &Path,
) -> Result<(Value, Vec<String>), String> {
    let entries = doc.as_sequence().ok_or("not a sequence of entries")?;
    if entries.len() != 1 {
        return Err(format!("{} entries", entries.len()));
    }
    let e = &entries[0];
    if string(e, "entry_type", "entry")? != entry_type {
        return Err(format!("entry_type is not {entry_type}"));
    }
    let m = get(e, "metadata", "entry")?;
    if string(m, "format_version", "metadata")? != "2.0" {
        return Err("format_version is not \"2.0\"".into());
    }
    let uuid = string(m, "uuid", "metadata")?;
    let groups: Vec<usize> = uuid.split('-').map(str::len).collect();
    if groups != [8, 4, 4, 4, 12] || !uuid.chars().all(|c| c == '-' || c.is_ascii_hexdigit()) {
        return Err(format!("uuid {uuid}"));
    }
    let time = string(m, "creation_time", "metadata")?;
    let b = time.as_bytes();
    if b.len() < 19 || b[4] != b'-' || b[10] != b'T' || b[13] != b':' {
        return Err(format!("creation_time {time}"));
    }
    let p = get(m, "producer", "metadata")?;
    string(p, "name", "producer")?;
    string(p, "version", "producer")?;
    let t = get(m, "task", "metadata")?;
    let files: Vec<String> = get(t, "input_files", "task")?
        .as_sequence()
        .ok_or("input_files: not a sequence")?
        .iter()
        .map(|f| {
            f.as_str()
                .map(str::to_string)
                .ok_or("input file: not a string")
        })
        .collect::<Result<_, _>>()?;
    if files != [input.display().to_string()] {
        return Err(format!("input_files {files:?}"));
    }
    let hashes = get(t, "input_file_hashes", "task")?;
    for f in &files {
        let h = string(hashes, f, "input_file_hashes")?;
        if h != sha256(&std::fs::read(f).unwrap()) {
            return Err(format!("hash of {f}"));
        }
    }
    if string(t, "specification", "task")?.is_empty() {
        return Err("empty specification".into());
    }
    if !["ILP32", "LP64"].contains(&string(t, "data_model", "task")?)
        || string(t, "language", "task")? != "C"
    {
        return Err("data_model / language".into());
    }
    Ok((e.clone(), files))
}

/// Checks a YAML violation witness of `input`.
pub fn check_yaml(text: &str, input: &Path) -> Result<(), String> {
    let doc: Value = serde_yaml_ng::from_str(text).map_err(|e| e.to_string())?;
    let (e, files) = entry_of(&doc, "violation_sequence", input)?;
    let e = &e;
    let content = get(e, "content", "entry")?
        .as_sequence()
        .ok_or("content: not a sequence")?;
    if content.is_empty() {
        return Err("no segments".into());
    }
    for (i, s) in content.iter().enumerate() {
        let at = format!("segment {i}");
        let wps = get(s, "segment", &at)?
            .as_sequence()
            .ok_or(format!("{at}: not a sequence"))?;
        let mut actions = Vec::new();
        for (j, w) in wps.iter().enumerate() {
            let at = format!("{at} waypoint {j}");
            actions.push(check_waypoint(get(w, "waypoint", &at)?, &files, &at)?);
        }
        let follows = actions.iter().filter(|(_, a)| a == "follow").count();
        if follows != 1 || actions.last().map(|(_, a)| a.as_str()) != Some("follow") {
            return Err(format!(
                "{at}: {follows} follow waypoints, or not at the end"
            ));
        }
        let is_target = actions.last().is_some_and(|(k, _)| k == "target");
        if is_target != (i + 1 == content.len()) {
            return Err(format!(
                "{at}: the target must end the last segment, only it"
            ));
        }
    }
    Ok(())
}

/// Checks a GraphML violation witness of `input`.
pub fn check_graphml(text: &str, input: &Path) -> Result<(), String> {
    use quick_xml::events::Event;
    let mut r = quick_xml::Reader::from_str(text);
    let mut keys = Vec::new();
    let mut graph_data = std::collections::HashMap::new();
    let mut nodes = Vec::new();
    let (mut entries, mut violations) = (0, 0);
    let mut edges = Vec::new();
    let mut stack: Vec<String> = Vec::new();
    let mut data_key: Option<String> = None;
    let attr = |e: &quick_xml::events::BytesStart, name: &str| -> Option<String> {
        e.attributes()
            .flatten()
            .find(|a| a.key.as_ref() == name.as_bytes())
            .map(|a| String::from_utf8_lossy(&a.value).into_owned())
    };
    loop {
        let ev = r.read_event().map_err(|e| e.to_string())?;
        let (start, empty) = match &ev {
            Event::Start(e) => (Some(e.clone()), false),
            Event::Empty(e) => (Some(e.clone()), true),
            _ => (None, false),
        };
        if let Some(e) = start {
            let name = String::from_utf8_lossy(e.name().as_ref()).into_owned();
            match name.as_str() {
                "key" => keys.push(attr(&e, "id").ok_or("key without id")?),
                "node" => nodes.push(attr(&e, "id").ok_or("node without id")?),
                "edge" => edges.push((
                    attr(&e, "source").ok_or("edge without source")?,
                    attr(&e, "target").ok_or("edge without target")?,
                )),
                "data" => data_key = attr(&e, "key"),
                _ => {}
            }
            if !empty {
                stack.push(name);
            }
            continue;
        }
        match ev {
            Event::Text(t) => {
                let (Some(k), Some(parent)) = (&data_key, stack.iter().rev().nth(1)) else {
                    continue;
                };
                let v = t.unescape().map_err(|e| e.to_string())?.into_owned();
                if !keys.contains(k) {
                    return Err(format!("data key {k} is not declared"));
                }
                match (parent.as_str(), k.as_str()) {
                    ("graph", _) => {
                        graph_data.insert(k.clone(), v);
                    }
                    ("node", "entry") if v == "true" => entries += 1,
                    ("node", "violation") if v == "true" => violations += 1,
                    ("edge", "startline") => {
                        let n: usize = v.parse().map_err(|_| format!("startline {v}"))?;
                        let lines = lines_of(&input.display().to_string())?.len();
                        if n == 0 || n > lines {
                            return Err(format!("startline {n} is not in the input"));
                        }
                    }
                    ("edge", "control")
                        if !["condition-true", "condition-false"].contains(&v.as_str()) =>
                    {
                        return Err(format!("control {v}"));
                    }
                    _ => {}
                }
            }
            Event::End(_) => {
                stack.pop();
                data_key = None;
            }
            Event::Eof => break,
            _ => {}
        }
    }
    for k in [
        "witness-type",
        "sourcecodelang",
        "producer",
        "specification",
        "programfile",
        "programhash",
        "architecture",
        "creationtime",
    ] {
        if !graph_data.contains_key(k) {
            return Err(format!("no graph data {k}"));
        }
    }
    if graph_data["witness-type"] != "violation_witness"
        || graph_data["programfile"] != input.display().to_string()
        || graph_data["programhash"] != sha256(&std::fs::read(input).unwrap())
    {
        return Err(format!("graph data {graph_data:?}"));
    }
    if (entries, violations) != (1, 1) {
        return Err(format!("{entries} entry and {violations} violation nodes"));
    }
    if let Some((s, t)) = edges
        .iter()
        .find(|(s, t)| !nodes.contains(s) || !nodes.contains(t))
    {
        return Err(format!("edge {s} -> {t} between undeclared nodes"));
    }
    Ok(())
}
