//! Reading a YAML violation witness (format 2.0) back: its specification
//! and the `follow` waypoints of its segments, in order (`avoid` waypoints
//! are not used).

use serde_yaml_ng::Value;

use super::{ConstraintFormat, Waypoint, WaypointKind};

/// What `mpv validate` needs of a witness.
#[derive(Clone, Debug)]
pub struct ViolationWitness {
    pub specification: String,
    /// The violation is feasible under LDV's assumptions
    /// ([`super::LDV_ASSUMPTIONS`]).
    pub under_ldv_assumptions: bool,
    /// The `follow` waypoint of each segment; the last is the target.
    pub waypoints: Vec<Waypoint>,
}

/// Why `mpv validate` does not take a correctness witness.
pub const CORRECTNESS_NOT_VALIDATED: &str = "correctness witnesses (invariant_set) are not validated by mpv; it replays violation witnesses (violation_sequence) only";

/// Whether `doc` holds an `invariant_set` entry.
fn is_correctness_witness(doc: &Value) -> bool {
    doc.as_sequence().is_some_and(|s| {
        s.iter()
            .any(|e| e.get("entry_type").and_then(Value::as_str) == Some("invariant_set"))
    })
}

/// Parses the YAML text of a violation witness.
pub fn parse(text: &str) -> Result<ViolationWitness, String> {
    let doc: Value = serde_yaml_ng::from_str(text).map_err(|e| e.to_string())?;
    let entry = doc
        .as_sequence()
        .and_then(|s| {
            s.iter()
                .find(|e| e.get("entry_type").and_then(Value::as_str) == Some("violation_sequence"))
        })
        .ok_or_else(|| match is_correctness_witness(&doc) {
            true => CORRECTNESS_NOT_VALIDATED,
            false => "no violation_sequence entry",
        })?;
    let specification = entry
        .get("metadata")
        .and_then(|m| m.get("task"))
        .and_then(|t| t.get("specification"))
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let under_ldv_assumptions = entry
        .get("metadata")
        .and_then(|m| m.get("producer"))
        .and_then(|p| p.get("configuration"))
        .and_then(Value::as_str)
        == Some(super::LDV_ASSUMPTIONS);
    let segments = entry
        .get("content")
        .and_then(Value::as_sequence)
        .ok_or("no content")?;
    let mut waypoints = Vec::new();
    for (i, s) in segments.iter().enumerate() {
        let wps = s
            .get("segment")
            .and_then(Value::as_sequence)
            .ok_or(format!("segment {i}: not a sequence"))?;
        let follow = wps
            .iter()
            .filter_map(|w| w.get("waypoint"))
            .find(|w| w.get("action").and_then(Value::as_str) == Some("follow"))
            .ok_or(format!("segment {i}: no follow waypoint"))?;
        waypoints.push(waypoint(follow).map_err(|e| format!("segment {i}: {e}"))?);
    }
    if waypoints
        .last()
        .is_none_or(|w| w.kind != WaypointKind::Target)
    {
        return Err("the last segment does not end in the target".into());
    }
    Ok(ViolationWitness {
        specification,
        under_ldv_assumptions,
        waypoints,
    })
}

fn waypoint(w: &Value) -> Result<Waypoint, String> {
    let kind = match w.get("type").and_then(Value::as_str) {
        Some("assumption") => WaypointKind::Assumption,
        Some("branching") => WaypointKind::Branching,
        Some("function_enter") => WaypointKind::FunctionEnter,
        Some("function_return") => WaypointKind::FunctionReturn,
        Some("target") => WaypointKind::Target,
        other => return Err(format!("waypoint type {other:?}")),
    };
    let loc = w.get("location").ok_or("no location")?;
    let num = |k: &str| loc.get(k).and_then(Value::as_u64).map(|n| n as u32);
    let constraint = w.get("constraint").and_then(|c| {
        let value = match c.get("value")? {
            Value::String(s) => s.clone(),
            Value::Bool(b) => b.to_string(),
            v => serde_yaml_ng::to_string(v).ok()?.trim().to_string(),
        };
        let format = match c.get("format").and_then(Value::as_str) {
            Some("acsl_expression") => ConstraintFormat::AcslExpression,
            _ => ConstraintFormat::CExpression,
        };
        Some((value, format))
    });
    Ok(Waypoint {
        kind,
        line: num("line").ok_or("no line")?,
        column: num("column").unwrap_or(0),
        function: loc
            .get("function")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
        constraint,
        callee: None,
    })
}

/// The value `v` of a `\result == v` constraint (a C integer constant as
/// mpv writes them: decimal, optional `U`/`UL` suffix, `(m - 1)` for the
/// most negative value).
pub fn result_value(constraint: &str) -> Option<i128> {
    let v = constraint.trim().strip_prefix("\\result")?.trim_start();
    let v = v.strip_prefix("==")?.trim();
    if let Some(inner) = v.strip_prefix('(').and_then(|r| r.strip_suffix(')')) {
        let (a, b) = inner.split_once(" - ")?;
        return Some(int(a)? - int(b)?);
    }
    int(v)
}

fn int(s: &str) -> Option<i128> {
    s.trim().trim_end_matches(['U', 'u', 'L', 'l']).parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_constraints_read_back() {
        assert_eq!(result_value("\\result == -1"), Some(-1));
        assert_eq!(result_value("\\result == 4000000000U"), Some(4_000_000_000));
        assert_eq!(
            result_value("\\result == (-2147483647 - 1)"),
            Some(-2_147_483_648)
        );
        assert_eq!(result_value("x == 1"), None);
    }

    #[test]
    fn follow_waypoints_in_order_and_the_target_last() {
        let text = "- entry_type: violation_sequence\n  metadata:\n    task:\n      specification: S\n  content:\n  - segment:\n    - waypoint: {type: branching, action: avoid, constraint: {value: 'true'}, location: {file_name: a.c, line: 3}}\n    - waypoint: {type: branching, action: follow, constraint: {value: 'false'}, location: {file_name: a.c, line: 4}}\n  - segment:\n    - waypoint: {type: target, action: follow, location: {file_name: a.c, line: 5, column: 2}}\n";
        let w = parse(text).unwrap();
        assert_eq!(w.specification, "S");
        assert!(!w.under_ldv_assumptions);
        let ldv = text.replace(
            "  metadata:\n",
            "  metadata:\n    producer: {name: mpv, version: '1', configuration: ldv-assumptions}\n",
        );
        assert!(parse(&ldv).unwrap().under_ldv_assumptions);
        assert_eq!(w.waypoints.len(), 2);
        assert_eq!(
            (
                w.waypoints[0].line,
                w.waypoints[0].constraint.clone().unwrap().0.as_str()
            ),
            (4, "false")
        );
        assert_eq!(w.waypoints[1].kind, WaypointKind::Target);
        assert!(parse(&text.replace("type: target", "type: branching")).is_err());
    }
}
