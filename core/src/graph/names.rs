//! How a note is named in the graph: its permalink (the frontmatter's, or
//! one made from its path as basic-memory makes them) and the keys a
//! relation's target is looked up by (title, permalink, path).

use unicode_normalization::UnicodeNormalization;

/// A lookup key: NFC, lowercase, trimmed, `\` as `/`, no leading `/`.
/// Titles, paths and targets are compared this way.
pub fn fold(text: &str) -> String {
    let text = text.trim();
    let mut folded = match text.is_ascii() {
        // Most names: no composition to do, one byte a character.
        true => text.to_ascii_lowercase(),
        false => text.nfc().flat_map(char::to_lowercase).collect(),
    };
    if folded.contains('\\') {
        folded = folded.replace('\\', "/");
    }
    match folded.find(|c| c != '/') {
        Some(0) => folded,
        Some(start) => folded.split_off(start),
        None => String::new(),
    }
}

/// The permalink basic-memory makes from a path or a title: the extension
/// (`.md`, `.txt`…) dropped, camelCase split, lowercase, `_` and every
/// character but letters, digits, `.`, `/` and `-` as `-`, apostrophes
/// dropped, runs of `-` as one, none at a segment's ends.
/// (`docs/My Feature.md` → `docs/my-feature`, `specs/API (v2).md` →
/// `specs/api-v2`.) Letters outside ASCII are kept (lowercased), where
/// basic-memory transliterates Latin accents to ASCII.
pub fn slug(path: &str) -> String {
    let base = strip_extension(path.trim());
    let mut out = String::with_capacity(base.len());
    let mut previous: Option<char> = None;
    let composed: Box<dyn Iterator<Item = char>> = match base.is_ascii() {
        true => Box::new(base.chars()),
        false => Box::new(base.nfc()),
    };
    for c in composed {
        if c == '\'' || c == '\u{2019}' {
            continue;
        }
        if c.is_uppercase() && previous.is_some_and(|p| p.is_lowercase() || p.is_ascii_digit()) {
            out.push('-');
        }
        previous = Some(c);
        match c {
            '/' | '.' | '-' => out.push(c),
            c if c.is_alphanumeric() => out.extend(c.to_lowercase()),
            _ => out.push('-'),
        }
    }
    let mut collapsed = String::with_capacity(out.len());
    for c in out.chars() {
        if !(c == '-' && collapsed.ends_with('-')) {
            collapsed.push(c);
        }
    }
    collapsed
        .split('/')
        .map(|segment| segment.trim_matches('-'))
        .collect::<Vec<_>>()
        .join("/")
}

/// `path` without a file extension: the last segment's `.ext` when `ext`
/// is 1 to 5 ASCII letters or digits (so `Version 2.0.0` keeps its dots
/// after the last letter, as basic-memory's extension check does).
pub fn strip_extension(path: &str) -> &str {
    let name_start = path.rfind('/').map_or(0, |i| i + 1);
    match path[name_start..].rfind('.') {
        Some(dot) if dot > 0 => {
            let ext = &path[name_start + dot + 1..];
            let is_ext = (1..=5).contains(&ext.len())
                && ext.bytes().all(|b| b.is_ascii_alphanumeric())
                && ext.bytes().any(|b| b.is_ascii_alphabetic());
            if is_ext {
                &path[..name_start + dot]
            } else {
                path
            }
        }
        _ => path,
    }
}

/// A frontmatter `permalink` as the note's id: trimmed, without slashes at
/// its ends; `None` when that leaves nothing.
pub fn declared_permalink(declared: Option<&str>) -> Option<&str> {
    declared
        .map(|p| p.trim().trim_matches('/'))
        .filter(|p| !p.is_empty())
}

/// The hash a name is kept under in the graph's maps, so they hold numbers,
/// not strings (two names of one hash, about one chance in 10^8 at a
/// million names, would be taken for one). FNV-1a over the key's bytes: it
/// is saved with the graph, so it must not change with the toolchain, as
/// std's `DefaultHasher` may.
pub fn hash(key: &str) -> u64 {
    fnv1a(key.as_bytes())
}

/// 64-bit FNV-1a.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    bytes
        .iter()
        .fold(OFFSET, |h, &b| (h ^ u64::from(b)).wrapping_mul(PRIME))
}

/// The keys a note is found by: its title, its permalink, its path
/// without the extension (a target's extension is taken off to match it).
pub fn note_keys(path: &str, title: &str, permalink: &str) -> Vec<String> {
    let mut keys = vec![fold(title), fold(permalink), fold(strip_extension(path))];
    keys.retain(|k| !k.is_empty());
    keys.sort();
    keys.dedup();
    keys
}

/// The keys a relation's target is looked up by, most exact first: the
/// path relative to the folder of the note that holds it (for targets with
/// a `/`), then as written, then as a permalink. A `|label` or `#heading`
/// after the name is not part of it.
pub fn target_keys(source: &str, target: &str) -> Vec<String> {
    let name = target.split(['|', '#']).next().unwrap_or(target);
    let mut keys = Vec::with_capacity(3);
    if name.contains('/')
        && let Some((folder, _)) = source.rsplit_once('/')
    {
        let relative = name.trim_start_matches("./");
        keys.push(fold(&format!("{folder}/{}", strip_extension(relative))));
    }
    let name = name.trim_start_matches("./");
    keys.push(fold(name));
    keys.push(fold(strip_extension(name)));
    keys.push(fold(&slug(name)));
    keys.retain(|k| !k.is_empty());
    let mut seen = Vec::with_capacity(keys.len());
    for key in keys {
        if !seen.contains(&key) {
            seen.push(key);
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permalinks_are_made_as_basic_memory_makes_them() {
        assert_eq!(slug("docs/My Feature.md"), "docs/my-feature");
        assert_eq!(slug("specs/API (v2).md"), "specs/api-v2");
        assert_eq!(
            slug("design/unified_model_refactor.md"),
            "design/unified-model-refactor"
        );
        assert_eq!(slug("中文/测试文档.md"), "中文/测试文档");
        assert_eq!(slug("Version 2.0.0"), "version-2.0.0");
        assert_eq!(slug("notes/camelCaseName.md"), "notes/camel-case-name");
        assert_eq!(slug("people/Bob's notes.md"), "people/bobs-notes");
    }

    #[test]
    fn the_saved_hash_is_fnv1a() {
        // The published test vectors: a saved graph stays readable.
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(hash("foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn targets_are_looked_up_by_every_name_a_note_has() {
        let keys = note_keys(
            "projects/Alpha Plan.md",
            "Alpha Plan",
            "projects/alpha-plan",
        );
        for (source, target) in [
            ("x.md", "Alpha Plan"),
            ("x.md", "alpha plan"),
            ("x.md", "projects/alpha-plan"),
            ("x.md", "projects/Alpha Plan.md"),
            ("x.md", "projects/Alpha Plan"),
            ("x.md", "Alpha Plan|the plan"),
            ("x.md", "Alpha Plan#Risks"),
            ("projects/x.md", "./Alpha Plan.md"),
        ] {
            let found = target_keys(source, target);
            assert!(
                found.iter().any(|k| keys.contains(k)),
                "{target}: {found:?}"
            );
        }
        assert!(!target_keys("x.md", "Beta").iter().any(|k| keys.contains(k)));
    }
}
