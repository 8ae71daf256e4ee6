//! Turns the topics an agent asks `memory_read` for into notes. Topics are
//! matched against the catalog's notes only, so nothing outside the root
//! can match.

use super::entry::Entry;
use crate::vocab::NoteType;
use crate::vpath::ROOT;

/// Notes for `topics`, in the order asked, each once; and the topics that
/// matched nothing. `notes` lists every note (it is gone through once per
/// topic).
pub fn resolve<'a, I: Iterator<Item = &'a Entry>>(
    notes: impl Fn() -> I,
    topics: &[String],
) -> (Vec<&'a Entry>, Vec<String>) {
    let mut found: Vec<&Entry> = Vec::new();
    let mut unknown = Vec::new();
    for topic in topics {
        let wanted = normalize(topic);
        let matches: Vec<&Entry> = if wanted.is_empty() {
            Vec::new()
        } else {
            notes().filter(|e| matches(e, &wanted)).collect()
        };
        if matches.is_empty() {
            unknown.push(topic.clone());
        }
        for entry in matches {
            if !found.iter().any(|f| f.path == entry.path) {
                found.push(entry);
            }
        }
    }
    (found, unknown)
}

/// A topic matches a note by path (with or without `/memories/` and the
/// extension), file name, name, permalink or tag; a directory matches the
/// notes in it and a type name (`user`…) the notes of that type. Case,
/// spaces, `_` and `-` do not matter.
fn matches(entry: &Entry, wanted: &str) -> bool {
    let path = normalize(&entry.path);
    let without_extension = strip_extension(&path);
    let file = without_extension
        .rsplit('/')
        .next()
        .unwrap_or(without_extension);
    path == wanted
        || without_extension == wanted
        || file == wanted
        || normalize(&entry.meta.name) == wanted
        || entry.meta.permalink.as_deref().map(normalize).as_deref() == Some(wanted)
        || entry
            .meta
            .tags
            .iter()
            // `#postgres` and `postgres` both name the tag.
            .any(|t| normalize(t.trim_start_matches('#')) == wanted.trim_start_matches('#'))
        || path
            .strip_prefix(wanted)
            .is_some_and(|rest| rest.starts_with('/'))
        || NoteType::ALL
            .iter()
            .any(|t| t.as_str() == wanted && entry.meta.kind == *t)
}

fn strip_extension(path: &str) -> &str {
    match path.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() && !stem.ends_with('/') && !ext.contains('/') => stem,
        _ => path,
    }
}

fn normalize(text: &str) -> String {
    let text = text.trim();
    let text = text
        .strip_prefix('<')
        .and_then(|t| t.strip_suffix('>'))
        .unwrap_or(text);
    let text = text
        .strip_prefix(ROOT)
        .map(|rest| rest.strip_prefix('/').unwrap_or(rest))
        .unwrap_or(text);
    let text = text.trim_matches('/');
    text.chars()
        .map(|c| match c {
            ' ' | '_' => '-',
            c => c.to_ascii_lowercase(),
        })
        .flat_map(char::to_lowercase)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_of_one_topic_agree() {
        for topic in [
            "Coffee Prefs",
            "coffee_prefs",
            "coffee-prefs.md",
            "/memories/user/coffee-prefs.md",
            "<user/coffee-prefs.md>",
        ] {
            assert_eq!(
                normalize(topic).trim_end_matches(".md").rsplit('/').next(),
                Some("coffee-prefs"),
                "{topic}"
            );
        }
        assert_eq!(strip_extension("a.b/c"), "a.b/c");
        assert_eq!(strip_extension(".md"), ".md");
        assert_eq!(strip_extension("dir/x.md"), "dir/x");
    }

    #[test]
    fn a_topic_finds_notes_by_name_file_tag_permalink_directory_or_type() {
        let note = |path: &str, text: &str| {
            Entry::new(
                path.to_owned(),
                crate::notes::entry::FileStamp::sized(0),
                crate::notes::frontmatter::read(text, path.rsplit('/').next().unwrap()),
                0,
            )
        };
        let notes = [
            note(
                "prefs/coffee.md",
                "---\nname: Coffee order\ndescription: d\ntype: user\n---\n",
            ),
            note(
                "db.md",
                "---\ntitle: Database\ntype: note\ntags: [Postgres]\npermalink: the-db\n---\n",
            ),
        ];
        let found = |topic: &str| -> Vec<String> {
            let (found, unknown) = resolve(|| notes.iter(), &[topic.to_owned()]);
            assert_eq!(unknown.is_empty(), !found.is_empty());
            found.iter().map(|e| e.path.clone()).collect()
        };
        for topic in [
            "coffee order",
            "COFFEE",
            "prefs",
            "/memories/prefs/coffee.md",
            "user",
        ] {
            assert_eq!(found(topic), ["prefs/coffee.md"], "{topic}");
        }
        for topic in ["postgres", "#Postgres", "the_db", "Database", "db.md"] {
            assert_eq!(found(topic), ["db.md"], "{topic}");
        }
        assert!(found("../etc/passwd").is_empty());
        assert!(found("   ").is_empty());
    }
}
