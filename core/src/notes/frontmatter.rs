//! Reads a note's frontmatter (memcap's own keys and basic-memory's) and
//! writes memcap's. Anything unreadable still yields a note, with a problem.
//!
//! Long because reading and writing the same keys belong together: a
//! change to one side is checked against the other here.

use serde::{Deserialize, Serialize};
use yaml_rust2::yaml::Hash;
use yaml_rust2::{Yaml, YamlEmitter};

use super::fields::{self, Value};
use crate::text::one_line;
use crate::vocab::NoteType;

/// Longest description kept in the catalog; the index shortens further.
pub const MAX_DESCRIPTION_CHARS: usize = 300;
/// Longest name kept in the catalog.
pub const MAX_NAME_CHARS: usize = 200;
/// Longest other field (type, updated, permalink, a tag) kept.
const MAX_FIELD_CHARS: usize = 100;
/// The key of the time a fact stops holding.
pub const VALID_UNTIL: &str = "valid_until";
/// Tags kept per note.
const MAX_TAGS: usize = 32;

/// What the index and `memory_view` know about a note. Every field is
/// always written: the catalog's snapshot format (postcard) is not
/// self-describing.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct Meta {
    pub name: String,
    pub description: String,
    #[serde(rename = "type")]
    pub kind: NoteType,
    /// A `type` outside memcap's four (basic-memory's `note`, say).
    pub declared_type: Option<String>,
    pub updated: Option<String>,
    pub tags: Vec<String>,
    pub permalink: Option<String>,
    /// Whether the file opens with a frontmatter block that parsed.
    pub frontmatter: bool,
    /// Why the frontmatter could not be used, in words for the agent.
    pub problem: Option<String>,
    /// When the fact stops holding (`valid_until`, as written), so answers
    /// that list notes mark an expired one without reading it.
    pub valid_until: Option<String>,
}

/// The frontmatter block of `text`, if it opens with a `---` line.
struct Block<'a> {
    yaml: &'a str,
    body: &'a str,
}

enum Found<'a> {
    None,
    Unclosed,
    Block(Block<'a>),
}

fn is_fence(line: &str, closing: bool) -> bool {
    let line = line.trim_end_matches(['\n', '\r', ' ', '\t']);
    line == "---" || (closing && line == "...")
}

fn find_block(text: &str) -> Found<'_> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some((first, rest)) = text.split_once('\n') else {
        return Found::None;
    };
    if !is_fence(first, false) {
        return Found::None;
    }
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if is_fence(line, true) {
            return Found::Block(Block {
                yaml: &rest[..offset],
                body: &rest[offset + line.len()..],
            });
        }
        offset += line.len();
    }
    Found::Unclosed
}

/// The body of a note: what follows its frontmatter block (all of `text`
/// when there is none or it never closes), and how many lines come before
/// it, so a body's line `n` is the file's line `n + before`.
pub fn body(text: &str) -> (&str, u32) {
    let body = match find_block(text) {
        Found::Block(block) => block.body,
        Found::None | Found::Unclosed => return (text, 0),
    };
    // The body is the end of `text`.
    let head = &text[..text.len() - body.len()];
    (body, head.matches('\n').count() as u32)
}

/// The YAML of `text`'s frontmatter block (between its fences), when it
/// opens with one that closes; its first line is the file's line 2 (or 3
/// after a byte-order mark's line, which is still line 1).
pub fn yaml(text: &str) -> Option<&str> {
    match find_block(text) {
        Found::Block(block) => Some(block.yaml),
        Found::None | Found::Unclosed => None,
    }
}

/// Whether `head`, the start of a note, opens a frontmatter block that does
/// not close within it.
pub fn is_unclosed(head: &[u8]) -> bool {
    let text = match std::str::from_utf8(head) {
        Ok(text) => text,
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or_default(),
    };
    matches!(find_block(text), Found::Unclosed)
}

/// Reads the metadata of a note whose file is named `file_name`.
/// Never fails: a missing or broken block gives type `other` and, when
/// broken, a `problem` saying how to fix it. Every field comes back as one
/// line of bounded length ([`one_line`]), whatever the file holds.
pub fn read(text: &str, file_name: &str) -> Meta {
    let stem = file_name
        .rsplit_once('.')
        .map_or(file_name, |(stem, _)| stem);
    let plain = |body: &str, problem: Option<String>| Meta {
        name: one_line(
            if stem.is_empty() { file_name } else { stem },
            MAX_NAME_CHARS,
        ),
        description: first_line(body),
        kind: NoteType::Other,
        declared_type: None,
        updated: None,
        tags: Vec::new(),
        permalink: None,
        frontmatter: false,
        problem,
        valid_until: None,
    };
    let block = match find_block(text) {
        Found::None => return plain(text, None),
        Found::Unclosed => {
            return plain(
                text,
                Some(
                    "the frontmatter opens with --- but no closing --- line follows; \
                     add one after the last key"
                        .to_owned(),
                ),
            );
        }
        Found::Block(block) => block,
    };
    let fields = match fields::parse(block.yaml) {
        Ok(fields) => fields,
        Err(problem) => return plain(block.body, Some(problem)),
    };
    let get = |key: &str| {
        fields
            .iter()
            .find(|(k, _)| k == key)
            .and_then(|(_, v)| match v {
                Value::Text(text) => text.as_deref(),
                _ => None,
            })
    };
    let short = |text: &str| one_line(text, MAX_FIELD_CHARS);
    let mut meta = plain(block.body, None);
    meta.frontmatter = true;
    if let Some(name) = get("name").or_else(|| get("title")) {
        let name = one_line(name, MAX_NAME_CHARS);
        if !name.is_empty() {
            meta.name = name;
        }
    }
    if let Some(description) = get("description").or_else(|| get("summary")) {
        meta.description = one_line(description, MAX_DESCRIPTION_CHARS);
    }
    let titled = get("title").is_some();
    match get("type") {
        Some(t) => match NoteType::parse(t) {
            Some(kind) => meta.kind = kind,
            None => {
                let t = short(t);
                // basic-memory's own types (`note`, `person`…) are expected there.
                if !titled {
                    meta.problem = Some(format!(
                        "type \"{t}\" is not one of {}; the note is listed under Other",
                        NoteType::writable_list()
                    ));
                }
                meta.declared_type = Some(t);
            }
        },
        None if !titled => {
            meta.problem = Some(format!(
                "the frontmatter has no type; add one of {}",
                NoteType::writable_list()
            ));
        }
        None => {}
    }
    meta.updated = get("updated").map(short);
    meta.permalink = get("permalink").map(short);
    meta.valid_until = get(VALID_UNTIL)
        .map(short)
        .filter(|until| !until.is_empty());
    let tags: Vec<String> = match fields.iter().find(|(k, _)| k == "tags") {
        Some((_, Value::List(items))) => items.iter().map(|t| short(t)).collect(),
        Some((_, Value::Text(Some(text)))) => text
            .split([',', ' '])
            .map(|t| t.trim_start_matches('#'))
            .filter(|t| !t.is_empty())
            .map(short)
            .collect(),
        _ => Vec::new(),
    };
    meta.tags = tags
        .into_iter()
        .filter(|t| !t.is_empty())
        .take(MAX_TAGS)
        .collect();
    meta
}

/// The first line of the body that says something: not blank, not a heading
/// when a later line has text, with markdown heading marks removed.
fn first_line(body: &str) -> String {
    let mut heading = None;
    for line in body.lines().map(str::trim) {
        if line.is_empty() || line == "---" {
            continue;
        }
        if line.starts_with('#') {
            heading.get_or_insert(line.trim_start_matches('#'));
            continue;
        }
        return one_line(line, MAX_DESCRIPTION_CHARS);
    }
    one_line(heading.unwrap_or_default(), MAX_DESCRIPTION_CHARS)
}

/// A note file as `memory_write` writes it: memcap's frontmatter, a blank
/// line, then `content` ending in a newline.
pub fn compose(
    name: &str,
    description: &str,
    kind: NoteType,
    updated: &str,
    content: &str,
) -> String {
    let mut fields = Hash::new();
    for (key, value) in [
        ("name", name),
        ("description", description),
        ("type", kind.as_str()),
        ("updated", updated),
    ] {
        fields.insert(Yaml::String(key.to_owned()), Yaml::String(value.to_owned()));
    }
    let mut out = String::new();
    // Writing YAML to a String cannot fail; the emitter quotes what needs it.
    YamlEmitter::new(&mut out)
        .dump(&Yaml::Hash(fields))
        .expect("emitting YAML to a string");
    out.push_str("\n---\n\n");
    out.push_str(content);
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// `text` with the `updated:` key of its frontmatter set to `date`, when it
/// has one; otherwise `text` unchanged.
pub fn with_updated(text: &str, date: &str) -> String {
    let Found::Block(block) = find_block(text) else {
        return text.to_owned();
    };
    let start = block.yaml.as_ptr() as usize - text.as_ptr() as usize;
    let mut offset = start;
    for line in block.yaml.split_inclusive('\n') {
        if let Some(rest) = line.strip_prefix("updated:") {
            let ending = &rest[rest.trim_end_matches(['\r', '\n']).len()..];
            return format!(
                "{}updated: {date}{ending}{}",
                &text[..offset],
                &text[offset + line.len()..]
            );
        }
        offset += line.len();
    }
    text.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memcap_frontmatter() {
        let meta = read(
            "---\nname: Coffee\ndescription: Takes it black\ntype: user\nupdated: 2026-11-22\n---\n\nBody\n",
            "coffee.md",
        );
        assert_eq!(meta.name, "Coffee");
        assert_eq!(meta.description, "Takes it black");
        assert_eq!(meta.kind, NoteType::User);
        assert_eq!(meta.updated.as_deref(), Some("2026-11-22"));
        assert_eq!(meta.problem, None);
    }

    #[test]
    fn no_frontmatter_names_the_note_after_its_file() {
        let meta = read("# Title\n\nFirst words here.\n", "todo.txt");
        assert_eq!(meta.name, "todo");
        assert_eq!(meta.description, "First words here.");
        assert_eq!(meta.kind, NoteType::Other);
        assert_eq!(meta.problem, None);
        assert!(!meta.frontmatter);
        assert_eq!(
            read("# Only a heading\n", "x.md").description,
            "Only a heading"
        );
        assert_eq!(read("", ".md").name, ".md");
    }

    #[test]
    fn crlf_and_bom() {
        let meta = read(
            "\u{feff}---\r\nname: Tea\r\ntype: feedback\r\n---\r\nBody\r\n",
            "tea.md",
        );
        assert_eq!(meta.name, "Tea");
        assert_eq!(meta.kind, NoteType::Feedback);
        assert_eq!(meta.description, "Body");
    }

    #[test]
    fn broken_frontmatter_is_reported() {
        let bad = read("---\nname: [oops\ntype: user\n---\nText\n", "bad.md");
        assert_eq!(bad.kind, NoteType::Other);
        assert_eq!(bad.name, "bad");
        assert!(bad.problem.unwrap().contains("not valid YAML"));
        let unclosed = read("---\nname: x\n", "open.md");
        assert!(unclosed.problem.unwrap().contains("no closing"));
        let duplicate = read("---\nname: a\nname: b\ntype: user\n---\n", "dup.md");
        assert!(duplicate.problem.is_some());
        let list = read("---\n- a\n---\n", "list.md");
        assert!(list.problem.unwrap().contains("key: value"));
        let typo = read("---\nname: a\ntype: usr\n---\n", "typo.md");
        assert_eq!(typo.kind, NoteType::Other);
        assert!(typo.problem.unwrap().contains("\"usr\""));
    }

    #[test]
    fn basic_memory_notes() {
        let meta = read(
            "---\ntitle: Alice Smith\ntype: person\ntags:\n- team\n- '#lead'\npermalink: people/alice-smith\n---\n\n# Alice Smith\n\nLeads the platform team.\n",
            "Alice Smith.md",
        );
        assert_eq!(meta.name, "Alice Smith");
        assert_eq!(meta.kind, NoteType::Other);
        assert_eq!(meta.declared_type.as_deref(), Some("person"), "{meta:?}");
        assert_eq!(meta.tags, ["team", "#lead"]);
        assert_eq!(meta.permalink.as_deref(), Some("people/alice-smith"));
        assert_eq!(meta.description, "Leads the platform team.");
        assert_eq!(meta.problem, None);
    }

    #[test]
    fn unknown_keys_and_odd_values() {
        let meta = read(
            "---\nname: 2024\ndescription: \"a: b\"\ntype: Project\nowner: me\ntags: x, y\n---\n",
            "n.md",
        );
        assert_eq!(meta.name, "2024");
        assert_eq!(meta.description, "a: b");
        assert_eq!(meta.kind, NoteType::Project);
        assert_eq!(meta.tags, ["x", "y"]);
    }

    #[test]
    fn composed_notes_read_back() {
        for (name, description) in [
            ("Plain", "simple"),
            ("Ünïcode: yes", "- starts with a dash # and hash"),
            ("yes", "two\nlines"),
        ] {
            let text = compose(name, description, NoteType::Reference, "2026-11-22", "Body");
            let meta = read(&text, "x.md");
            assert_eq!(meta.name, name, "{text}");
            assert_eq!(
                meta.description,
                description.split_whitespace().collect::<Vec<_>>().join(" ")
            );
            assert_eq!(meta.kind, NoteType::Reference);
            assert_eq!(meta.problem, None);
            assert!(text.ends_with("\n---\n\nBody\n"), "{text}");
        }
    }

    #[test]
    fn updated_is_bumped_in_place() {
        let text = "---\nname: a\nupdated: 2020-01-01\r\ntype: user\n---\nupdated: body\n";
        assert_eq!(
            with_updated(text, "2026-11-22"),
            "---\nname: a\nupdated: 2026-11-22\r\ntype: user\n---\nupdated: body\n"
        );
        assert_eq!(with_updated("no front\n", "2026-11-22"), "no front\n");
    }
}
