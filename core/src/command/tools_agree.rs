//! The tool table (`tools`) and the parser agree: every field the table
//! describes is one the parser takes, of the kind it says.

use crate::command::parse;
use crate::error::ErrorKind;
use crate::tools::*;
use serde_json::{Map, Value, json};

/// A value of `kind` that the parser takes.
fn sample(kind: FieldKind) -> Value {
    match kind {
        FieldKind::Text => json!("/memories/a.md"),
        FieldKind::Integer => json!(0),
        FieldKind::Boolean => json!(true),
        FieldKind::TextList => json!(["a"]),
        FieldKind::Page => json!(1),
        FieldKind::Range => json!([1, 2]),
        FieldKind::NoteType => json!("user"),
        FieldKind::MaxResults => json!(5),
        FieldKind::Score => json!(0.2),
        FieldKind::Source => json!("memory"),
        FieldKind::Line => json!(1),
        FieldKind::Lines => json!("2"),
        FieldKind::Depth => json!(2),
        FieldKind::MaxRelated => json!(5),
        FieldKind::Timeframe => json!("7d"),
        FieldKind::ActivityType => json!("relation"),
        FieldKind::Precondition => {
            json!({"type": "content_sha256", "content_sha256": "00".repeat(32)})
        }
    }
}

fn input(spec: &CommandSpec, skip: Option<&str>) -> String {
    let mut fields = Map::new();
    fields.insert("command".into(), json!(spec.name));
    for field in spec.fields.iter().filter(|f| Some(f.name) != skip) {
        fields.insert(field.name.into(), sample(field.kind));
    }
    Value::Object(fields).to_string()
}

#[test]
fn the_parser_takes_exactly_the_commands_and_fields_listed() {
    for spec in COMMANDS {
        assert!(parse(&input(spec, None)).is_ok(), "{}", spec.name);
        for field in spec.fields {
            let without = parse(&input(spec, Some(field.name)));
            assert_eq!(
                without.is_err(),
                field.required,
                "{}.{}",
                spec.name,
                field.name
            );
            if let Err(e) = without {
                assert_eq!(e.kind(), ErrorKind::InvalidInput);
                assert!(e.to_string().contains(field.name), "{e}");
            }
        }
    }
    let unknown = parse(r#"{"command": "memory_forget"}"#).unwrap_err();
    for spec in COMMANDS {
        assert!(unknown.to_string().contains(spec.name), "{unknown}");
    }
}

#[test]
fn every_tool_has_a_description_and_an_object_schema() {
    let tools = describe();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "memory",
            "memory_read",
            "memory_view",
            "memory_write",
            "memory_update",
            "memory_delete",
            "memory_search",
            "memory_get",
            "memory_stats",
            "memory_guide",
            "build_context",
            "recent_activity",
            "memory_history",
            "memory_review"
        ]
    );
    for tool in &tools {
        assert!(tool.description.len() > 80, "{}", tool.name);
        let schema = &tool.input_schema;
        assert_eq!(schema["type"], "object");
        for name in schema["required"].as_array().unwrap() {
            assert!(schema["properties"].get(name.as_str().unwrap()).is_some());
        }
    }
    let memory = &tools[0].input_schema;
    assert_eq!(
        memory["properties"]["command"]["enum"],
        json!([
            "view",
            "create",
            "str_replace",
            "insert",
            "delete",
            "rename"
        ])
    );
    assert_eq!(memory["required"], json!(["command"]));
    // The descriptions are the WIT's words.
    assert!(
        tools[0]
            .description
            .starts_with("A persistent memory directory")
    );
    assert!(tools[1].description.starts_with("Read what memory holds."));
}
