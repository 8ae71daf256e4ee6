//! Reads the `///` docs of `wit/memory.wit` into Rust constants, so the tool
//! definitions `describe` returns say what the WIT says: the WIT stays the
//! one place the agent-facing text is written.

use std::fmt::Write;
use std::path::PathBuf;

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let wit = manifest.join("../wit/memory.wit");
    println!("cargo:rerun-if-changed={}", wit.display());
    let text = std::fs::read_to_string(&wit).expect("wit/memory.wit is readable");

    let mut docs: Vec<(String, String)> = Vec::new();
    let mut block: Vec<&str> = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim();
        if let Some(doc) = trimmed.strip_prefix("///") {
            block.push(doc.strip_prefix(' ').unwrap_or(doc));
            continue;
        }
        // The function (or interface) the block documents.
        let name = trimmed
            .split_once(": func(")
            .map(|(name, _)| name.to_owned())
            .or_else(|| {
                trimmed
                    .strip_prefix("interface ")
                    .map(|rest| format!("interface {}", rest.trim_end_matches(" {")))
            });
        if let Some(name) = name
            && !block.is_empty()
        {
            docs.push((name, unwrap(&block)));
        }
        block.clear();
    }

    let mut out = String::from(
        "/// The `///` docs of `wit/memory.wit`, by function name (and \
         `interface NAME`).\npub(crate) const WIT_DOCS: &[(&str, &str)] = &[\n",
    );
    for (name, doc) in &docs {
        writeln!(out, "    ({name:?}, {doc:?}),").unwrap();
    }
    out.push_str("];\n");
    let dest = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("wit_docs.rs");
    std::fs::write(dest, out).unwrap();
}

/// The doc's paragraphs with their lines joined (the WIT wraps them at 80
/// columns; an agent reads paragraphs), list items kept on their own lines.
fn unwrap(lines: &[&str]) -> String {
    let mut out = String::new();
    for line in lines {
        let line = line.trim_end();
        if line.is_empty() {
            out.push_str("\n\n");
        } else if out.is_empty() || out.ends_with('\n') {
            out.push_str(line);
        } else if line.starts_with("- ") {
            out.push('\n');
            out.push_str(line);
        } else {
            out.push(' ');
            out.push_str(line);
        }
    }
    out
}
