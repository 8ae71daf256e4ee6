//! Reads a JSON array of note bodies on stdin and writes, as a JSON array,
//! what the graph parser finds in each: the tool the parser differential
//! (`tests/graph/differential.mjs`) runs against basic-memory's parser.

use std::io::Read;

use memcap_core::graph::parse;
use serde_json::{Value, json};

fn main() {
    let mut input = String::new();
    std::io::stdin()
        .read_to_string(&mut input)
        .expect("stdin is readable");
    let bodies: Vec<String> =
        serde_json::from_str(&input).expect("stdin holds a JSON array of strings");
    let parsed: Vec<Value> = bodies
        .iter()
        .map(|body| {
            let parsed = parse(body);
            json!({
                "observations": parsed.observations.iter().map(|o| json!({
                    "category": o.category, "content": o.content,
                    "tags": o.tags, "context": o.context,
                })).collect::<Vec<_>>(),
                "relations": parsed.relations.iter().map(|r| json!({
                    "type": r.kind, "target": r.target, "context": r.context,
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    println!("{}", Value::Array(parsed));
}
