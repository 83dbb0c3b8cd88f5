//! The GraphML violation witness (SV-COMP format 1.0): a path of nodes from
//! the `entry` node to the `violation` node, one edge per waypoint, with
//! `startline`, `control` (`condition-true`/`condition-false`),
//! `enterFunction` and `assumption` (`\result == v;` of a returning
//! function without a body, `assumption.resultfunction`).

use std::fmt::Write;

use super::{sha256_hex, ConstraintFormat, Metadata, Task, Waypoint, WaypointKind};

/// `(id, for, type)` of every data key the witness uses.
const KEYS: &[(&str, &str, &str)] = &[
    ("witness-type", "graph", "string"),
    ("sourcecodelang", "graph", "string"),
    ("producer", "graph", "string"),
    ("specification", "graph", "string"),
    ("programfile", "graph", "string"),
    ("programhash", "graph", "string"),
    ("architecture", "graph", "string"),
    ("creationtime", "graph", "string"),
    ("entry", "node", "boolean"),
    ("violation", "node", "boolean"),
    ("startline", "edge", "int"),
    ("startoffset", "edge", "int"),
    ("control", "edge", "string"),
    ("enterFunction", "edge", "string"),
    ("returnFrom", "edge", "string"),
    ("assumption", "edge", "string"),
    ("assumption.scope", "edge", "string"),
    ("assumption.resultfunction", "edge", "string"),
];

/// Text with the XML special characters escaped.
pub fn escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&apos;"),
            c => o.push(c),
        }
    }
    o
}

/// The witness as GraphML text.
pub fn render(task: &Task, waypoints: &[Waypoint], meta: &Metadata) -> String {
    let mut s = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n");
    s.push_str("<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\">\n");
    for (id, f, t) in KEYS {
        let _ = writeln!(
            s,
            " <key attr.name=\"{id}\" attr.type=\"{t}\" for=\"{f}\" id=\"{id}\"/>"
        );
    }
    s.push_str(" <graph edgedefault=\"directed\">\n");
    let data = |s: &mut String, indent: &str, k: &str, v: &str| {
        let _ = writeln!(s, "{indent}<data key=\"{k}\">{}</data>", escape(v));
    };
    let file = task.input_file.display().to_string();
    let graph = [
        ("witness-type", "violation_witness".to_string()),
        ("sourcecodelang", "C".into()),
        ("producer", format!("mpv {}", task.producer_version)),
        ("specification", task.specification.clone()),
        ("programfile", file),
        ("programhash", sha256_hex(task.source.as_bytes())),
        (
            "architecture",
            format!("{}bit", task.data_model.pointer_bits()),
        ),
        ("creationtime", meta.creation_time.clone()),
    ];
    for (k, v) in &graph {
        data(&mut s, "  ", k, v);
    }
    s.push_str("  <node id=\"N0\">\n   <data key=\"entry\">true</data>\n  </node>\n");
    let n = waypoints.len();
    for (i, w) in waypoints.iter().enumerate() {
        let to = i + 1;
        if to == n {
            let _ = writeln!(
                s,
                "  <node id=\"N{to}\">\n   <data key=\"violation\">true</data>\n  </node>"
            );
        } else {
            let _ = writeln!(s, "  <node id=\"N{to}\"/>");
        }
        let _ = writeln!(s, "  <edge source=\"N{i}\" target=\"N{to}\">");
        data(&mut s, "   ", "startline", &w.line.to_string());
        match (w.kind, &w.constraint, &w.callee) {
            (WaypointKind::Branching, Some((v, _)), _) => {
                let c = if v == "false" {
                    "condition-false"
                } else {
                    "condition-true"
                };
                data(&mut s, "   ", "control", c);
            }
            (WaypointKind::FunctionEnter, _, Some(f)) => data(&mut s, "   ", "enterFunction", f),
            (WaypointKind::FunctionReturn, Some((v, ConstraintFormat::AcslExpression)), f) => {
                data(&mut s, "   ", "assumption", &format!("{v};"));
                data(&mut s, "   ", "assumption.scope", &w.function);
                if let Some(f) = f {
                    data(&mut s, "   ", "assumption.resultfunction", f);
                }
            }
            (WaypointKind::Assumption, Some((v, _)), _) => {
                data(&mut s, "   ", "assumption", &format!("{v};"));
                data(&mut s, "   ", "assumption.scope", &w.function);
            }
            _ => {}
        }
        s.push_str("  </edge>\n");
    }
    s.push_str(" </graph>\n</graphml>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_characters_are_escaped() {
        assert_eq!(
            escape("a < b && c > \"d\""),
            "a &lt; b &amp;&amp; c &gt; &quot;d&quot;"
        );
    }
}
