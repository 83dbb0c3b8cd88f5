//! SV-COMP property files: `CHECK( init(main()), LTL(G ! label(L)) )` gives
//! property `label:L`, `CHECK( init(main()), LTL(G ! call(f())) )` gives
//! `call:f`. A file may hold several CHECK lines, one property each.

use std::path::Path;

use regex::Regex;

use super::{Goal, Property, Purpose};
use crate::{Error, Result};

/// Reads the properties of a `.prp` file.
pub fn load(path: &Path) -> Result<Vec<Property>> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    parse(&path.display().to_string(), &text)
}

/// Parses `.prp` text; `name` is used in errors and origins.
pub fn parse(name: &str, text: &str) -> Result<Vec<Property>> {
    let check = Regex::new(
        r"^CHECK\(\s*init\(\s*([A-Za-z_][A-Za-z0-9_]*)\(\)\s*\)\s*,\s*LTL\(\s*G\s*!\s*(label|call)\(\s*([A-Za-z_][A-Za-z0-9_]*)(\(\))?\s*\)\s*\)\s*\)$",
    )
    .expect("valid regex");
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let l = line.trim();
        if l.is_empty() || l.starts_with("//") {
            continue;
        }
        let Some(c) = check.captures(l) else {
            return Err(Error::Spec {
                file: name.to_string(),
                line: i as u32 + 1,
                column: (line.len() - line.trim_start().len()) as u32 + 1,
                message: format!(
                    "unsupported property `{l}`: mpv reads `CHECK( init(main()), LTL(G ! label(L)) )` and `CHECK( init(main()), LTL(G ! call(f())) )`"
                ),
            });
        };
        let (kind, target) = (&c[2], c[3].to_string());
        let (goal, id, description) = if kind == "label" {
            (
                Goal::Label(target.clone()),
                format!("label:{target}"),
                format!("the label {target} is never reached"),
            )
        } else {
            if c.get(4).is_none() {
                return Err(Error::Spec {
                    file: name.to_string(),
                    line: i as u32 + 1,
                    column: 1,
                    message: format!("`call({target})` must name a call: `call({target}())`"),
                });
            }
            (
                Goal::Call(target.clone()),
                format!("call:{target}"),
                format!("the function {target} is never called"),
            )
        };
        if out.iter().any(|p: &Property| p.id == id) {
            continue;
        }
        out.push(Property {
            id,
            description,
            goal,
            entry: Some(c[1].to_string()),
            origin: format!("{name}:{}", i + 1),
            purpose: Purpose::Verdict,
        });
    }
    if out.is_empty() {
        return Err(Error::Spec {
            file: name.to_string(),
            line: 1,
            column: 1,
            message: "no CHECK line: the property file is empty".into(),
        });
    }
    Ok(out)
}

/// The property as the SV-COMP property file writes it:
/// `CHECK( init(main()), LTL(G ! call(f())) )` (`None` for mpv's rules).
pub fn svcomp_text(p: &Property) -> Option<String> {
    let entry = p.entry.as_deref().unwrap_or("main");
    match &p.goal {
        Goal::Label(l) => Some(format!("CHECK( init({entry}()), LTL(G ! label({l})) )")),
        Goal::Call(f) => Some(format!("CHECK( init({entry}()), LTL(G ! call({f}())) )")),
        Goal::Rule { .. } => None,
    }
}

/// A `G ! call(f())` property as a specification automaton: any call of
/// `f`, its result used or not, or the entry of `f` where it has a body, is
/// the error (`f() called`); `None` for other goals.
pub fn call_automaton(p: &Property) -> Option<crate::spec::automaton::SpecAutomaton> {
    let Goal::Call(f) = &p.goal else {
        return None;
    };
    let text = format!(
        "automaton call_{f};\nrule \"{}\" \"{}\";\ninitial Idle;\nerror Called \"{f}() called\";\nstate Idle {{ on {f}($?), $? = {f}($?), entry {f} -> Called; }}\n",
        p.id, p.description
    );
    crate::spec::automaton::from_text(&p.origin, &text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_and_call_properties() {
        let ps = parse(
            "a.prp",
            "CHECK( init(main()), LTL(G ! label(ERROR)) )\n\nCHECK( init(main()), LTL(G ! call(__VERIFIER_error())) )\n",
        )
        .unwrap();
        assert_eq!(ps.len(), 2);
        assert_eq!(ps[0].id, "label:ERROR");
        assert_eq!(ps[0].goal, Goal::Label("ERROR".into()));
        assert_eq!(ps[1].id, "call:__VERIFIER_error");
        assert_eq!(ps[1].origin, "a.prp:3");
        assert_eq!(ps[1].entry.as_deref(), Some("main"));
        let a = call_automaton(&ps[1]).expect("compiles");
        assert_eq!(a.properties[0].id, "call:__VERIFIER_error");
        assert_eq!(a.api_functions(), vec!["__VERIFIER_error"]);
        assert!(call_automaton(&ps[0]).is_none());
        assert_eq!(
            svcomp_text(&ps[1]).unwrap(),
            "CHECK( init(main()), LTL(G ! call(__VERIFIER_error())) )"
        );
    }

    #[test]
    fn unsupported_properties_are_errors_with_positions() {
        let e = parse("m.prp", "CHECK( init(main()), LTL(G valid-free) )").unwrap_err();
        assert!(
            e.to_string().starts_with("m.prp:1:1: unsupported property"),
            "{e}"
        );
        let e = parse("m.prp", "\n  CHECK( init(main()), LTL(G ! call(f)) )").unwrap_err();
        assert!(e.to_string().starts_with("m.prp:2:1:"), "{e}");
        assert!(parse("e.prp", "").is_err());
    }
}
