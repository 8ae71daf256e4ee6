//! What hosts read from the built components besides their code: the
//! component name (Wassette's component id) and, in the Wassette flavour, a
//! `package-docs` section whose docs become the tool descriptions.

use std::collections::BTreeMap;

use wasmparser::{KnownCustom, Parser, Payload};

/// The root component's name and its `package-docs` section, if any.
fn name_and_docs(path: &str) -> (Option<String>, Option<Vec<u8>>) {
    let bytes = std::fs::read(path).unwrap();
    let (mut name, mut docs) = (None, None);
    let mut depth = 0;
    for payload in Parser::new(0).parse_all(&bytes) {
        match payload.unwrap() {
            Payload::ModuleSection { .. } | Payload::ComponentSection { .. } => depth += 1,
            Payload::End(_) => depth -= 1,
            // Sections of nested modules and components (depth > 0) are theirs.
            Payload::CustomSection(section) if depth == 0 => match section.as_known() {
                KnownCustom::ComponentName(names) => {
                    for entry in names {
                        if let wasmparser::ComponentName::Component { name: n, .. } = entry.unwrap()
                        {
                            name = Some(n.to_owned());
                        }
                    }
                }
                _ if section.name() == "package-docs" => docs = Some(section.data().to_vec()),
                _ => {}
            },
            _ => {}
        }
    }
    (name, docs)
}

#[test]
fn the_binary_embeds_the_library_component_as_built() {
    let built = std::fs::read(memcap::GUEST_WASM_PATH).unwrap();
    assert!(
        memcap::guest_wasm().unwrap() == built,
        "the embedded component differs"
    );
}

#[test]
fn every_component_is_named_memcap() {
    for path in [
        memcap::GUEST_WASM_PATH,
        memcap::COMMAND_WASM_PATH,
        memcap::TOOLS_WASM_PATH,
    ] {
        assert_eq!(name_and_docs(path).0.as_deref(), Some("memcap"), "{path}");
    }
}

#[test]
fn the_wassette_flavour_documents_every_function_as_the_wit_does() {
    let (_, docs) = name_and_docs(memcap::TOOLS_WASM_PATH);
    let docs = docs.expect("a package-docs section");
    // A format version byte, then JSON (wit-parser's `PackageMetadata`).
    let json: serde_json::Value = serde_json::from_slice(&docs[1..]).unwrap();
    let funcs: BTreeMap<String, String> = json["worlds"]["root"]["func_exports"]
        .as_object()
        .expect("the decoded world `root` lists its functions")
        .iter()
        .map(|(name, f)| (name.clone(), f["docs"].as_str().unwrap().to_owned()))
        .collect();
    assert_eq!(funcs.len(), 20, "{:?}", funcs.keys());
    // The same text `describe` gives the MCP tools, before unwrapping lines.
    let flat = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let dir = tempfile::tempdir().unwrap();
    let described = memcap::Memory::open(dir.path())
        .unwrap()
        .describe()
        .unwrap();
    for name in [
        "memory_write",
        "memory_search",
        "memory_get",
        "memory_stats",
        "build_context",
        "recent_activity",
        "memory_guide",
        "memory_review",
    ] {
        let tool = described.iter().find(|t| t.name == name).unwrap();
        assert_eq!(
            flat(&funcs[&name.replace('_', "-")]),
            flat(&tool.description)
        );
    }
    assert!(
        funcs["file-view"].starts_with("Show a directory listing or a file with line numbers.")
    );
    assert!(funcs.values().all(|d| !d.is_empty()));
}
