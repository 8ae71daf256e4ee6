//! `describe`: the tools the component lists for a host or an MCP server.
//! Every tool it lists runs through `call` with the input its schema
//! describes, and its description is the WIT's text.

#[macro_use]
mod common;

use common::Fixture;
use serde_json::{Map, Value, json};

/// A value the schema `property` accepts.
fn sample(property: &Value) -> Value {
    if let Some(first) = property["enum"].as_array().and_then(|e| e.first()) {
        return first.clone();
    }
    match property["type"].as_str().unwrap() {
        "string" => json!("/memories/sample.md"),
        "integer" => json!(1),
        "boolean" => json!(false),
        "array" => match property["items"]["type"].as_str().unwrap() {
            "integer" => json!([1, 2]),
            _ => json!(["sample"]),
        },
        other => panic!("no sample for {other}"),
    }
}

both_backends! {
fn every_tool_listed_runs_through_call_with_its_schema() {
    let f = Fixture::new();
    let tools = f.memory.describe().unwrap();
    // The component serves exactly the definitions core makes.
    let core = memcap_core::tools::describe();
    assert_eq!(tools.len(), core.len());
    for (served, made) in tools.iter().zip(&core) {
        assert_eq!(served.name, made.name);
        assert_eq!(served.description, made.description);
        assert_eq!(served.input_schema, made.input_schema);
    }
    for tool in &tools {
        let schema = &tool.input_schema;
        assert_eq!(schema["type"], "object", "{}", tool.name);
        let properties = schema["properties"].as_object().unwrap();
        let required: Vec<&str> = schema["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_str().unwrap())
            .collect();
        // The note tools: their required fields are enough for `call`.
        let commands: Vec<String> = match tool.name.as_str() {
            "memory" => properties["command"]["enum"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_str().unwrap().to_owned())
                .collect(),
            name => vec![name.to_owned()],
        };
        for command in commands {
            let mut input = Map::new();
            for (name, property) in properties {
                let wanted = required.contains(&name.as_str())
                    || memcap_core::tools::command(&command)
                        .unwrap()
                        .fields
                        .iter()
                        .any(|f| f.name == name && f.required);
                if wanted {
                    input.insert(name.clone(), sample(property));
                }
            }
            input.insert("command".into(), json!(command));
            let result = f.memory.call(&Value::Object(input).to_string());
            // Whatever the store says (a missing file, say), the input itself
            // was taken: no "Invalid tool input" or missing-field message.
            assert!(
                !result.content.contains("Missing")
                    && !result.content.contains("must be")
                    && !result.content.contains("Invalid tool input")
                    && !result.content.contains("Unknown command"),
                "{command}: {}",
                result.content
            );
        }
    }
}
}

/// `text` with every run of whitespace one space.
fn collapsed(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

both_backends! {
fn descriptions_are_the_wit_docs() {
    let f = Fixture::new();
    let tools = f.memory.describe().unwrap();
    let wit =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../wit/memory.wit")).unwrap();
    let docs: Vec<&str> = wit
        .lines()
        .filter_map(|l| l.trim().strip_prefix("///"))
        .collect();
    let docs = collapsed(&docs.join(" "));
    for tool in &tools {
        // The memory tool ends with its list of commands, made from the table.
        let from_wit = tool.description.split("Commands (").next().unwrap();
        assert!(from_wit.len() > 80, "{}", tool.name);
        assert!(
            docs.contains(&collapsed(from_wit)),
            "{}: {from_wit}",
            tool.name
        );
    }
    let memory = &tools[0].description;
    assert!(
        memory.contains("\n- str_replace: path, old_str, new_str"),
        "{memory}"
    );
}
}

#[test]
fn the_cli_prints_the_tools_as_json() {
    // One backend: `describe` opens no store.
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_memcap"))
        .arg("--root")
        .arg(dir.path().join("memories"))
        .arg("describe")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let tools: Vec<memcap::ToolDefinition> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(tools.len(), 14);
    // A read: nothing is created for it.
    assert!(!dir.path().join("memories").exists());
}
