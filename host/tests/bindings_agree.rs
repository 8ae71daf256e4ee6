//! The command table (`memcap_core::tools::COMMANDS`) and what repeats it
//! by hand agree, so a command added to the table (docs/architecture.md,
//! "Where a change goes") cannot be forgotten in a binding: every command
//! has a typed method in the Python and Node packages (and its type in
//! `index.d.ts`), and each package's list of commands that only read is the
//! table's.

use std::collections::BTreeSet;
use std::path::Path;

use memcap_core::tools::COMMANDS;

fn read(rel: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel))
        .unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn camel(name: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in name.chars() {
        match c {
            '_' => upper = true,
            c if upper => {
                out.extend(c.to_uppercase());
                upper = false;
            }
            c => out.push(c),
        }
    }
    out
}

/// The quoted names between `open` and the next `close` in `text`.
fn quoted_set(text: &str, open: &str, close: &str) -> BTreeSet<String> {
    let start = text
        .find(open)
        .unwrap_or_else(|| panic!("{open:?} not found"))
        + open.len();
    let body = &text[start..start + text[start..].find(close).expect("the list ends")];
    body.split(['"', '\''])
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

fn reads() -> BTreeSet<String> {
    COMMANDS
        .iter()
        .filter(|c| !c.writes)
        .map(|c| c.name.to_owned())
        .collect()
}

#[test]
fn every_command_has_a_typed_method_in_each_package() {
    let python = read("bindings/python/src/memcap/__init__.py");
    let node = read("bindings/node/index.js");
    let types = read("bindings/node/index.d.ts");
    for command in COMMANDS {
        let snake = command.name;
        let camel = camel(snake);
        assert!(
            python.contains(&format!("    def {snake}(")),
            "bindings/python: no Memory.{snake}"
        );
        assert!(
            node.contains(&format!("\n  {camel}("))
                || node.contains(&format!("\n  async {camel}(")),
            "bindings/node/index.js: no Memory.{camel}"
        );
        assert!(
            types.contains(&format!("  {camel}(")),
            "bindings/node/index.d.ts: no type for {camel}"
        );
    }
}

#[test]
fn each_packages_read_only_commands_are_the_tables() {
    let python = read("bindings/python/src/memcap/__init__.py");
    let node = read("bindings/node/index.js");
    assert_eq!(
        quoted_set(&python, "_READS = frozenset({", "})"),
        reads(),
        "bindings/python _READS"
    );
    assert_eq!(
        quoted_set(&node, "const READS = new Set([", "])"),
        reads(),
        "bindings/node READS"
    );
}

#[test]
fn the_name_helpers_do_what_the_checks_assume() {
    assert_eq!(camel("memory_guide"), "memoryGuide");
    assert_eq!(camel("view"), "view");
    assert_eq!(
        quoted_set("x = {'a', \"b\"} y", "{", "}"),
        BTreeSet::from(["a".to_owned(), "b".to_owned()])
    );
}
