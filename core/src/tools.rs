//! The tool definitions a host or an MCP server lists (`describe`): each
//! tool's name, description and the JSON Schema of its input. The commands
//! and their fields are written once, in [`COMMANDS`], which the input parser
//! (`command.rs`) also reads; the descriptions are the WIT docs
//! (`wit/memory.wit`, read at build time), so an agent reads the same text
//! whichever way it reaches memcap.
//!
//! Long because the table is the point: every command and field in one
//! place, with the schema and description built from it beside it.

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::vocab::{
    MAX_DEPTH, MAX_RELATED_DEFAULT, MAX_RELATED_LIMIT, MAX_RESULTS_DEFAULT, MAX_RESULTS_LIMIT,
    MIN_SCORE_DEFAULT, NoteType, Source,
};

include!(concat!(env!("OUT_DIR"), "/wit_docs.rs"));

/// How a field's value is written in the tool input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldKind {
    Text,
    Integer,
    Boolean,
    TextList,
    /// A page number, from 1.
    Page,
    /// `view_range`: `[start, end]`.
    Range,
    /// One of the four writable note types, as a string.
    NoteType,
    /// `maxResults`: 1 to [`MAX_RESULTS_LIMIT`].
    MaxResults,
    /// A score threshold, 0 to 1.
    Score,
    /// Which sources a search looks in.
    Source,
    /// A line number, from 1.
    Line,
    /// `memory_get`'s `lines`: a range `"42-56"` or a count.
    Lines,
    /// `build_context`'s `depth`: 1 to 3.
    Depth,
    /// `build_context`'s `max_related`: 1 to 50.
    MaxRelated,
    /// A span back from now or a date (`7d`, `2 weeks`, `2026-11-01`).
    Timeframe,
    /// `recent_activity`'s `type`: entity, observation, relation or a note type.
    ActivityType,
    /// A write's `precondition`: `{"type": "content_sha256", "content_sha256": HEX}`.
    Precondition,
}

/// One field of a command's input.
#[derive(Clone, Copy, Debug)]
pub struct Field {
    pub name: &'static str,
    pub kind: FieldKind,
    pub required: bool,
}

/// Which tool offers a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offered {
    /// Part of `memory`, Claude's memory tool: its six file commands.
    MemoryTool,
    /// A tool of its own, named after the command.
    OwnTool,
    /// Not a tool the agent calls (`prompt` is for the host's system prompt).
    HostOnly,
}

/// A command `call` takes, with its fields.
#[derive(Clone, Copy, Debug)]
pub struct CommandSpec {
    pub name: &'static str,
    pub fields: &'static [Field],
    pub offered: Offered,
    /// Whether it may change files (a host creates a missing store first).
    pub writes: bool,
}

const fn text(name: &'static str) -> Field {
    Field {
        name,
        kind: FieldKind::Text,
        required: true,
    }
}

/// Every write's optional precondition on the content it changes.
const PRECONDITION: Field = optional("precondition", FieldKind::Precondition);

const fn optional(name: &'static str, kind: FieldKind) -> Field {
    Field {
        name,
        kind,
        required: false,
    }
}

/// Every command `call` takes, in the order tools are listed.
pub const COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        name: "view",
        fields: &[text("path"), optional("view_range", FieldKind::Range)],
        writes: false,
        offered: Offered::MemoryTool,
    },
    CommandSpec {
        name: "create",
        fields: &[text("path"), text("file_text"), PRECONDITION],
        writes: true,
        offered: Offered::MemoryTool,
    },
    CommandSpec {
        name: "str_replace",
        fields: &[text("path"), text("old_str"), text("new_str"), PRECONDITION],
        writes: true,
        offered: Offered::MemoryTool,
    },
    CommandSpec {
        name: "insert",
        fields: &[
            text("path"),
            Field {
                name: "insert_line",
                kind: FieldKind::Integer,
                required: true,
            },
            text("insert_text"),
            PRECONDITION,
        ],
        writes: true,
        offered: Offered::MemoryTool,
    },
    CommandSpec {
        name: "delete",
        fields: &[text("path"), PRECONDITION],
        writes: true,
        offered: Offered::MemoryTool,
    },
    CommandSpec {
        name: "rename",
        fields: &[text("old_path"), text("new_path"), PRECONDITION],
        writes: true,
        offered: Offered::MemoryTool,
    },
    CommandSpec {
        name: "memory_read",
        fields: &[
            optional("topics", FieldKind::TextList),
            optional("page", FieldKind::Page),
        ],
        writes: false,
        offered: Offered::OwnTool,
    },
    CommandSpec {
        name: "memory_view",
        fields: &[
            optional("all", FieldKind::Boolean),
            optional("page", FieldKind::Page),
        ],
        writes: false,
        offered: Offered::OwnTool,
    },
    CommandSpec {
        name: "memory_write",
        fields: &[
            text("filename"),
            text("name"),
            optional("description", FieldKind::Text),
            Field {
                name: "type",
                kind: FieldKind::NoteType,
                required: true,
            },
            text("content"),
            PRECONDITION,
        ],
        writes: true,
        offered: Offered::OwnTool,
    },
    CommandSpec {
        name: "memory_update",
        fields: &[
            text("filename"),
            text("old_str"),
            text("new_str"),
            PRECONDITION,
        ],
        writes: true,
        offered: Offered::OwnTool,
    },
    CommandSpec {
        name: "memory_delete",
        fields: &[text("filename"), PRECONDITION],
        writes: true,
        offered: Offered::OwnTool,
    },
    CommandSpec {
        name: "memory_search",
        fields: &[
            text("query"),
            optional("maxResults", FieldKind::MaxResults),
            optional("minScore", FieldKind::Score),
            optional("source", FieldKind::Source),
            optional("categories", FieldKind::TextList),
            optional("tags", FieldKind::TextList),
            optional("types", FieldKind::TextList),
            optional("after_date", FieldKind::Timeframe),
            optional("includeSuperseded", FieldKind::Boolean),
            optional("by", FieldKind::TextList),
            optional("notBy", FieldKind::TextList),
        ],
        writes: false,
        offered: Offered::OwnTool,
    },
    CommandSpec {
        name: "memory_get",
        fields: &[
            text("path"),
            optional("lines", FieldKind::Lines),
            optional("from", FieldKind::Line),
        ],
        writes: false,
        offered: Offered::OwnTool,
    },
    CommandSpec {
        name: "memory_stats",
        fields: &[],
        writes: false,
        offered: Offered::OwnTool,
    },
    CommandSpec {
        name: "memory_guide",
        fields: &[],
        writes: false,
        offered: Offered::OwnTool,
    },
    CommandSpec {
        name: "build_context",
        fields: &[
            text("url"),
            optional("depth", FieldKind::Depth),
            optional("timeframe", FieldKind::Timeframe),
            optional("max_related", FieldKind::MaxRelated),
            optional("page", FieldKind::Page),
        ],
        writes: false,
        offered: Offered::OwnTool,
    },
    CommandSpec {
        name: "recent_activity",
        fields: &[
            optional("timeframe", FieldKind::Timeframe),
            optional("type", FieldKind::ActivityType),
            optional("page", FieldKind::Page),
        ],
        writes: false,
        offered: Offered::OwnTool,
    },
    CommandSpec {
        name: "memory_history",
        fields: &[
            text("path"),
            optional("version", FieldKind::Page),
            optional("page", FieldKind::Page),
        ],
        writes: false,
        offered: Offered::OwnTool,
    },
    CommandSpec {
        name: "memory_review",
        fields: &[optional("timeframe", FieldKind::Timeframe)],
        writes: false,
        offered: Offered::OwnTool,
    },
    CommandSpec {
        name: "prompt",
        fields: &[],
        writes: false,
        offered: Offered::HostOnly,
    },
];

/// The command named `name`, if `call` takes it.
pub fn command(name: &str) -> Option<&'static CommandSpec> {
    COMMANDS.iter().find(|c| c.name == name)
}

/// One tool as a host or an MCP server lists it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Tool {
    pub name: String,
    pub description: String,
    /// A JSON Schema (an object's) for the tool's input.
    pub input_schema: Value,
}

/// The name of Claude's memory tool, which takes the six file commands.
pub const MEMORY_TOOL: &str = "memory";

/// The tools: `memory` (Claude's memory tool: the six file commands, with
/// its input schema) and one tool per note command. A call to a tool is a
/// `call` whose input is the tool's input, with `"command"` set to the tool's
/// name for the note tools.
pub fn describe() -> Vec<Tool> {
    let mut tools = vec![memory_tool()];
    for spec in COMMANDS.iter().filter(|c| c.offered == Offered::OwnTool) {
        let (properties, required) = properties(std::iter::once(spec));
        tools.push(Tool {
            name: spec.name.to_owned(),
            description: wit_doc(&spec.name.replace('_', "-")).to_owned(),
            input_schema: object(properties, required),
        });
    }
    tools
}

fn memory_tool() -> Tool {
    let file_commands: Vec<&CommandSpec> = COMMANDS
        .iter()
        .filter(|c| c.offered == Offered::MemoryTool)
        .collect();
    let (mut properties, _) = properties(file_commands.iter().copied());
    let names: Vec<&str> = file_commands.iter().map(|c| c.name).collect();
    properties.insert(
        "command".to_owned(),
        json!({"type": "string", "enum": names}),
    );
    // The docs of the `files` interface, then each command with its fields.
    let general = wit_doc("interface files");
    let mut description = format!("{general}\n\nCommands (`command`, then its fields):");
    for spec in &file_commands {
        let fields: Vec<String> = spec
            .fields
            .iter()
            .map(|f| match f.required {
                true => f.name.to_owned(),
                false => format!("{} (optional)", f.name),
            })
            .collect();
        description.push_str(&format!("\n- {}: {}", spec.name, fields.join(", ")));
    }
    Tool {
        name: MEMORY_TOOL.to_owned(),
        description,
        input_schema: object(properties, vec!["command".to_owned()]),
    }
}

/// The schema properties of the commands' fields (each name once) and the
/// names every one of them requires.
fn properties<'a>(
    specs: impl Iterator<Item = &'a CommandSpec>,
) -> (Map<String, Value>, Vec<String>) {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for spec in specs {
        for field in spec.fields {
            properties.insert(field.name.to_owned(), schema(field.kind));
            if field.required {
                required.push(field.name.to_owned());
            }
        }
    }
    (properties, required)
}

fn schema(kind: FieldKind) -> Value {
    match kind {
        FieldKind::Text => json!({"type": "string"}),
        FieldKind::Integer => json!({"type": "integer"}),
        FieldKind::Boolean => json!({"type": "boolean"}),
        FieldKind::TextList => json!({"type": "array", "items": {"type": "string"}}),
        FieldKind::Page => json!({"type": "integer", "minimum": 1}),
        FieldKind::Range => json!({
            "type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2
        }),
        FieldKind::MaxResults => json!({
            "type": "integer", "minimum": 1, "maximum": MAX_RESULTS_LIMIT,
            "default": MAX_RESULTS_DEFAULT
        }),
        FieldKind::Score => json!({
            "type": "number", "minimum": 0.0, "maximum": 1.0, "default": MIN_SCORE_DEFAULT
        }),
        FieldKind::Source => json!({"type": "string", "enum": Source::NAMES, "default": "all"}),
        FieldKind::Line => json!({"type": "integer", "minimum": 1}),
        // A string, so that the range search gives ("42-56") passes schema
        // checks; a count is taken as a number or as digits.
        FieldKind::Lines => json!({"type": "string"}),
        FieldKind::Depth => json!({
            "type": "integer", "minimum": 1, "maximum": MAX_DEPTH, "default": 1
        }),
        FieldKind::MaxRelated => json!({
            "type": "integer", "minimum": 1, "maximum": MAX_RELATED_LIMIT,
            "default": MAX_RELATED_DEFAULT
        }),
        FieldKind::Timeframe => {
            json!({"type": "string", "examples": ["7d", "2 weeks", "2026-11-01"]})
        }
        FieldKind::ActivityType => json!({
            "type": "string", "examples": ["entity", "observation", "relation", "project"]
        }),
        FieldKind::Precondition => json!({
            "type": "object",
            "description": "Optional: make the change only if the file's content still has \
                this SHA-256 (the `sha256` a view or an earlier write answered), else fail \
                with a conflict and change nothing.",
            "properties": {
                "type": {"type": "string", "enum": ["content_sha256"]},
                "content_sha256": {"type": "string", "pattern": "^[0-9a-fA-F]{64}$"}
            },
            "required": ["type", "content_sha256"],
            "additionalProperties": false
        }),
        FieldKind::NoteType => {
            let names: Vec<&str> = NoteType::WRITABLE.iter().map(|t| t.as_str()).collect();
            json!({"type": "string", "enum": names})
        }
    }
}

fn object(properties: Map<String, Value>, required: Vec<String>) -> Value {
    json!({"type": "object", "properties": properties, "required": required})
}

/// The WIT doc of a function (kebab-case name) or of `interface files`.
fn wit_doc(name: &str) -> &'static str {
    WIT_DOCS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, doc)| *doc)
        .unwrap_or_else(|| panic!("wit/memory.wit documents {name}"))
}
