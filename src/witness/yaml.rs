//! The YAML violation witness, format 2.0: one `violation_sequence` entry,
//! each waypoint in a segment of its own (a segment ends in exactly one
//! waypoint of action `follow`), the last one the `target`. A violation
//! feasible only under LDV's assumptions says so in the producer's
//! `configuration` ([`LDV_ASSUMPTIONS`]) and lists them in its
//! `description`.

use serde::Serialize;

use super::{sha256_hex, Metadata, Task, Waypoint, LDV_ASSUMPTIONS};

/// A witness' one entry: its type, metadata and content items.
#[derive(Serialize)]
pub(super) struct Entry<'a, C> {
    pub(super) entry_type: &'static str,
    pub(super) metadata: Meta<'a>,
    pub(super) content: Vec<C>,
}

#[derive(Serialize)]
pub(super) struct Meta<'a> {
    format_version: &'static str,
    uuid: &'a str,
    creation_time: &'a str,
    producer: Producer<'a>,
    task: TaskMeta,
}

#[derive(Serialize)]
struct Producer<'a> {
    name: &'static str,
    version: &'a str,
    /// [`LDV_ASSUMPTIONS`] when the violation needs LDV's assumptions.
    #[serde(skip_serializing_if = "Option::is_none")]
    configuration: Option<&'static str>,
    /// The assumptions, described.
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<String>,
}

#[derive(Serialize)]
struct TaskMeta {
    input_files: Vec<String>,
    input_file_hashes: std::collections::BTreeMap<String, String>,
    specification: String,
    data_model: &'static str,
    language: &'static str,
}

#[derive(Serialize)]
struct Segment<'a> {
    segment: Vec<WaypointItem<'a>>,
}

#[derive(Serialize)]
struct WaypointItem<'a> {
    waypoint: Wp<'a>,
}

#[derive(Serialize)]
struct Wp<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    action: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    constraint: Option<Constraint<'a>>,
    location: Location<'a>,
}

#[derive(Serialize)]
struct Constraint<'a> {
    value: &'a str,
    format: &'static str,
}

#[derive(Serialize)]
pub(super) struct Location<'a> {
    pub(super) file_name: &'a str,
    pub(super) line: u32,
    pub(super) column: u32,
    pub(super) function: &'a str,
}

/// The witness as YAML text; `assumptions` (LDV's, described) are those
/// the path is feasible under.
pub fn render(
    task: &Task,
    waypoints: &[Waypoint],
    assumptions: &[String],
    meta: &Metadata,
) -> String {
    let file = task.input_file.display().to_string();
    let content = waypoints
        .iter()
        .map(|w| Segment {
            segment: vec![WaypointItem {
                waypoint: Wp {
                    kind: w.kind.name(),
                    action: "follow",
                    constraint: w.constraint.as_ref().map(|(v, f)| Constraint {
                        value: v,
                        format: f.name(),
                    }),
                    location: Location {
                        file_name: &file,
                        line: w.line,
                        column: w.column,
                        function: &w.function,
                    },
                },
            }],
        })
        .collect();
    let entry = Entry {
        entry_type: "violation_sequence",
        metadata: metadata(task, meta, &file, assumptions),
        content,
    };
    serde_yaml_ng::to_string(&vec![entry]).expect("a witness serialises")
}

/// The `metadata` of a YAML witness of `task` (its input `file` as the
/// witness names it); `assumptions` (LDV's, described) are those its claim
/// holds under.
pub(super) fn metadata<'a>(
    task: &Task<'a>,
    meta: &'a Metadata,
    file: &str,
    assumptions: &[String],
) -> Meta<'a> {
    Meta {
        format_version: "2.0",
        uuid: &meta.uuid,
        creation_time: &meta.creation_time,
        producer: Producer {
            name: "mpv",
            version: task.producer_version,
            configuration: (!assumptions.is_empty()).then_some(LDV_ASSUMPTIONS),
            description: (!assumptions.is_empty()).then(|| {
                format!(
                    "feasible under LDV's assumptions: {}",
                    assumptions.join("; ")
                )
            }),
        },
        task: TaskMeta {
            input_files: vec![file.to_string()],
            input_file_hashes: [(file.to_string(), sha256_hex(task.source.as_bytes()))]
                .into_iter()
                .collect(),
            specification: task.specification.clone(),
            data_model: task.data_model.name(),
            language: "C",
        },
    }
}
