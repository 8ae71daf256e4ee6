//! One block's relations: an explicit `type [[Target]] (context)` list
//! line, bare `[[Target]]` links in any text (`links_to`), and markdown
//! links to files. The rules follow basic-memory's relation plugin.

use std::ops::Range;

use super::observation::without_links_to_directive;

/// The type of a relation that a bare `[[link]]` or a markdown link makes.
pub const LINKS_TO: &str = "links_to";

/// A link from a note to a target named by title, permalink or path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Relation {
    pub kind: String,
    /// As written (`project::note` is read as `project/note`); a markdown
    /// link's target is a path (`./` added when it names none).
    pub target: String,
    pub context: Option<String>,
    /// The 1-based line of the body where the block starts.
    pub line: u32,
}

/// The relations of a block's `text` written in `[[ ]]`: one explicit
/// relation when the block is a list item's and reads `type [[Target]]`
/// with at most a `(context)` after it, else every `[[link]]` in it.
pub fn wikilinks(text: &str, in_list_item: bool, line: u32) -> Vec<Relation> {
    if !text.contains("[[") {
        return Vec::new();
    }
    // Brackets inside `code` are no links; masking keeps every offset.
    let code = code_spans(text);
    let masked = blank_code(text, &code, false);
    let directive = directive_outside_code(text, &code);
    if in_list_item
        && directive.is_none()
        && let Some(relation) = explicit(&masked, text, line)
    {
        return vec![relation];
    }
    let searched = &masked[..directive.unwrap_or(masked.len())];
    inline_links(searched, text, line)
}

/// A markdown link's target as a relation, when it names a file here: not
/// a URL, `mailto:` or fragment, nor a folder. Percent-escapes are decoded;
/// the query and fragment dropped.
pub fn markdown_link(href: &str, line: u32) -> Option<Relation> {
    let path = local_path(href)?;
    let path = percent_encoding::percent_decode_str(path).decode_utf8_lossy();
    if path.contains(['\\', '\0']) || path.ends_with('/') {
        return None;
    }
    let target = if ["/", "./", "../"].iter().any(|p| path.starts_with(p)) {
        path.into_owned()
    } else {
        format!("./{path}")
    };
    Some(Relation {
        kind: LINKS_TO.to_string(),
        target,
        context: None,
        line,
    })
}

/// The path part of a URL reference that has no scheme and no host.
fn local_path(href: &str) -> Option<&str> {
    let href = href.trim_start_matches(|c: char| c <= ' ');
    if let Some(colon) = href.find(':') {
        let scheme = &href[..colon];
        let is_scheme = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b));
        if is_scheme {
            return None;
        }
    }
    let mut path = href;
    if let Some(after) = href.strip_prefix("//") {
        let host_end = after.find(['/', '?', '#']).unwrap_or(after.len());
        if host_end > 0 {
            return None;
        }
        path = after;
    }
    let path = &path[..path.find(['?', '#']).unwrap_or(path.len())];
    (!path.is_empty()).then_some(path)
}

/// `type [[Target]]` or `type [[Target]] (context)`: `masked` has code
/// spans' brackets blanked; names and context are read from `text`.
fn explicit(masked: &str, text: &str, line: u32) -> Option<Relation> {
    let kind = relation_type(masked)?;
    let start = masked.find("[[")?;
    let end = start + 2 + masked[start + 2..].find("]]")?;
    let target = project_path(text[start + 2..end].trim());
    if target.is_empty() {
        return None;
    }
    let mut context = None;
    if !masked[end + 2..].trim().is_empty() {
        if !is_one_parenthesized(masked[end + 2..].trim()) {
            return None;
        }
        let after = text[end + 2..].trim();
        let inner = after[1..after.len() - 1].trim();
        context = (!inner.is_empty()).then(|| inner.to_string());
    }
    Some(Relation {
        kind: kind.to_string(),
        target,
        context,
        line,
    })
}

/// The label before the first `[[`: one word, or any words in quotes.
fn relation_type(masked: &str) -> Option<&str> {
    let before = masked[..masked.find("[[")?].trim();
    let quote = before.chars().next()?;
    if (quote == '"' || quote == '\'') && before.ends_with(quote) {
        let inner = before.get(1..before.len() - 1).unwrap_or("").trim();
        return (!inner.is_empty()).then_some(inner);
    }
    (!before.contains(char::is_whitespace)).then_some(before)
}

/// One `( … )` group, balanced, closing at the last character.
fn is_one_parenthesized(text: &str) -> bool {
    if !text.starts_with('(') {
        return false;
    }
    let mut depth = 0i32;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return i == text.len() - 1;
                }
            }
            _ => {}
        }
    }
    false
}

/// Every outermost, unescaped `[[ … ]]` in `masked`, nested pairs counted.
fn inline_links(masked: &str, text: &str, line: u32) -> Vec<Relation> {
    let bytes = masked.as_bytes();
    let at = |i: usize, pair: &[u8]| bytes[i..].starts_with(pair) && !escaped(bytes, i);
    let mut relations = Vec::new();
    let mut from = 0;
    while let Some(found) = masked[from..].find("[[") {
        let start = from + found;
        if escaped(bytes, start) {
            from = start + 2;
            continue;
        }
        let (mut depth, mut i, mut end) = (1, start + 2, None);
        while i < bytes.len() {
            if at(i, b"[[") {
                depth += 1;
                i += 2;
            } else if at(i, b"]]") {
                depth -= 1;
                if depth == 0 {
                    end = Some(i);
                    break;
                }
                i += 2;
            } else {
                i += 1;
            }
        }
        let Some(end) = end else { break };
        let target = project_path(text[start + 2..end].trim());
        if !target.is_empty() {
            relations.push(Relation {
                kind: LINKS_TO.to_string(),
                target,
                context: None,
                line,
            });
        }
        from = end + 2;
    }
    relations
}

/// An odd run of backslashes stands before `i`.
fn escaped(bytes: &[u8], i: usize) -> bool {
    bytes[..i].iter().rev().take_while(|&&b| b == b'\\').count() % 2 == 1
}

/// `project::note` names `project/note`.
fn project_path(target: &str) -> String {
    match target.split_once("::") {
        Some((project, rest)) => format!("{project}/{}", rest.trim_start_matches('/')),
        None => target.to_string(),
    }
}

/// The byte ranges of `code` spans: a run of backticks to the next run of
/// the same length (CommonMark); a backslash escapes what follows it.
fn code_spans(text: &str) -> Vec<Range<usize>> {
    let bytes = text.as_bytes();
    let run = |i: usize| bytes[i..].iter().take_while(|&&b| b == b'`').count();
    let mut spans = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if bytes.get(i + 1).is_some_and(u8::is_ascii_punctuation) => i += 2,
            b'`' => {
                let open = run(i);
                let mut j = i + open;
                let mut close = None;
                while j < bytes.len() {
                    if bytes[j] == b'`' {
                        let n = run(j);
                        if n == open {
                            close = Some(j + n);
                            break;
                        }
                        j += n;
                    } else {
                        j += 1;
                    }
                }
                match close {
                    Some(end) => {
                        spans.push(i..end);
                        i = end;
                    }
                    None => i += open,
                }
            }
            _ => i += 1,
        }
    }
    spans
}

/// `text` with bytes inside code spans turned to spaces: only brackets,
/// or every byte. Offsets stay those of `text`.
fn blank_code(text: &str, code: &[Range<usize>], every_byte: bool) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for span in code {
        for b in &mut bytes[span.clone()] {
            if every_byte || *b == b'[' || *b == b']' {
                *b = b' ';
            }
        }
    }
    // Spans run from backtick to backtick, so whole characters are replaced.
    String::from_utf8(bytes).expect("code spans hold whole characters")
}

/// Where a trailing `#bm:links_to` outside code starts its cut, if any.
fn directive_outside_code(text: &str, code: &[Range<usize>]) -> Option<usize> {
    let plain = blank_code(text, code, true);
    let (kept, found) = without_links_to_directive(&plain);
    found.then_some(kept.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str, in_item: bool) -> Vec<(String, String, Option<String>)> {
        wikilinks(text, in_item, 1)
            .into_iter()
            .map(|r| (r.kind, r.target, r.context))
            .collect()
    }

    fn rel(kind: &str, target: &str, context: Option<&str>) -> (String, String, Option<String>) {
        (kind.into(), target.into(), context.map(String::from))
    }

    #[test]
    fn explicit_relations_and_plain_links() {
        let links_to = |target: &str| rel("links_to", target, None);
        let cases = [
            (
                "implements [[Auth Service]] (since v2)",
                true,
                vec![rel("implements", "Auth Service", Some("since v2"))],
            ),
            (
                "\"based on\" [[Design]]",
                true,
                vec![rel("based on", "Design", None)],
            ),
            // Outside a list item, or with prose around it, it is a plain link.
            ("implements [[Auth]]", false, vec![links_to("Auth")]),
            (
                "we chose [[A]] over [[B]]",
                true,
                vec![links_to("A"), links_to("B")],
            ),
            ("uses [[A]] #bm:links_to", true, vec![links_to("A")]),
            // Code, escapes, nesting, project references.
            ("see `[[not]]` and [[yes]]", false, vec![links_to("yes")]),
            ("\\[[no]] [[a [[b]] c]]", false, vec![links_to("a [[b]] c")]),
            ("[[proj::/note]]", false, vec![links_to("proj/note")]),
        ];
        for (text, in_item, expected) in cases {
            assert_eq!(read(text, in_item), expected, "{text}");
        }
    }

    #[test]
    fn markdown_links_name_local_files_only() {
        let target = |h: &str| markdown_link(h, 1).map(|r| r.target);
        assert_eq!(target("notes/a%20b.md#top"), Some("./notes/a b.md".into()));
        assert_eq!(target("../up.md?x=1"), Some("../up.md".into()));
        assert_eq!(target("///rooted.md"), Some("/rooted.md".into()));
        for href in [
            "https://x.org/a.md",
            "mailto:a@b",
            "#frag",
            "dir/",
            "//host/a",
            "C:x",
        ] {
            assert_eq!(target(href), None, "{href}");
        }
    }
}
