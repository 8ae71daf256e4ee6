//! One observation: a block of text read as `[category] content #tags
//! (context)`. The rules follow basic-memory's observation plugin, which
//! reads every paragraph, list item and heading outside a blockquote.

/// A fact about a note, as written on one of its lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Observation {
    /// The `[category]`; `None` for a line that is an observation by its
    /// `#tags` alone (the graph files those under `note`).
    pub category: Option<String>,
    pub content: String,
    /// The `#tags` in the content, without `#` (`#a#b` gives `a` and `b`).
    pub tags: Vec<String>,
    /// The text of a trailing `(context)`.
    pub context: Option<String>,
    /// The 1-based line of the body where the block starts.
    pub line: u32,
}

/// The directive that makes a list line's `[[links]]` plain `links_to`.
const LINKS_TO_DIRECTIVE: &str = "#bm:links_to";

/// The observation a block's text holds, if it holds one.
pub fn observation(text: &str, line: u32) -> Option<Observation> {
    let text = without_links_to_directive(text.trim()).0;
    if !is_observation(text) {
        return None;
    }
    let (category, mut content) = match category(text) {
        Some((category, rest)) => (Some(category.to_string()), rest.trim()),
        None => (None, empty_brackets(text).unwrap_or(text)),
    };
    let mut context = None;
    if content.ends_with(')')
        && let Some(open) = content.rfind('(')
    {
        context = Some(content[open + 1..content.len() - 1].trim().to_string());
        content = content[..open].trim();
    }
    if content.is_empty() {
        return None;
    }
    Some(Observation {
        category,
        content: content.to_string(),
        tags: tags(content),
        context,
        line,
    })
}

/// `text` without a trailing ` #bm:links_to`, and whether it had one.
pub fn without_links_to_directive(text: &str) -> (&str, bool) {
    let end = text.trim_end();
    match end.strip_suffix(LINKS_TO_DIRECTIVE) {
        Some(before) if before.ends_with(char::is_whitespace) => (before.trim_end(), true),
        _ => (text, false),
    }
}

fn is_observation(text: &str) -> bool {
    if text.is_empty() || ["[ ]", "[x]", "[-]"].iter().any(|t| text.starts_with(t)) {
        return false;
    }
    if is_markdown_link(text) || is_wikilink(text) {
        return false;
    }
    category(text).is_some() || text.split_whitespace().any(|w| w.starts_with('#'))
}

/// The whole text is one `[text](url)` on one line.
fn is_markdown_link(text: &str) -> bool {
    !text.contains('\n')
        && text.starts_with('[')
        && text.ends_with(')')
        && text[1..].find("](").is_some_and(|i| i + 1 + 2 < text.len())
}

/// The whole text is one `[[target]]` on one line.
fn is_wikilink(text: &str) -> bool {
    !text.contains('\n') && text.len() >= 4 && text.starts_with("[[") && text.ends_with("]]")
}

/// `[category] rest`: the category (trimmed) and the rest of its line. A
/// clock time (`[00:01:02]`) or a task marker (`[/]`, `[X]`) is no category.
fn category(text: &str) -> Option<(&str, &str)> {
    let inner = text.strip_prefix('[')?;
    let close = inner.find(['[', ']', '(', ')'])?;
    if close == 0 || !inner[close..].starts_with(']') {
        return None;
    }
    let rest = first_line_after_space(&inner[close + 1..])?;
    let category = inner[..close].trim();
    if is_clock(category) || is_task_marker(category) {
        return None;
    }
    Some((category, rest))
}

/// `[] rest`: the rest of the line after empty brackets.
fn empty_brackets(text: &str) -> Option<&str> {
    first_line_after_space(text.strip_prefix("[]")?).map(str::trim)
}

/// After at least one whitespace character, the next non-empty run up to a
/// line break (how `\s+(.+)` reads).
fn first_line_after_space(text: &str) -> Option<&str> {
    let rest = text.trim_start();
    if rest.len() == text.len() || rest.is_empty() {
        return None;
    }
    Some(rest.split('\n').next().unwrap_or(rest))
}

fn is_task_marker(category: &str) -> bool {
    let mut chars = category.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => c == 'x' || c == 'X' || !c.is_alphanumeric(),
        _ => false,
    }
}

/// `H:MM`, `H:MM:SS`, with an optional `.mmm`, or two of them joined by ` - `.
fn is_clock(text: &str) -> bool {
    let one = |t: &str| {
        let Some((hours, rest)) = t.split_once(':') else {
            return false;
        };
        let (time, fraction) = match rest.find(['.', ',']) {
            Some(i) => (&rest[..i], Some(&rest[i + 1..])),
            None => (rest, None),
        };
        let digits = |s: &str, min, max| {
            (min..=max).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit())
        };
        let time_ok = match time.split_once(':') {
            Some((minutes, seconds)) => digits(minutes, 2, 2) && digits(seconds, 2, 2),
            None => digits(time, 2, 2),
        };
        digits(hours, 1, 3) && time_ok && fraction.is_none_or(|f| digits(f, 1, 3))
    };
    if one(text) {
        return true;
    }
    // A range: the first ` - ` surrounded by whitespace splits it.
    text.match_indices('-').any(|(i, _)| {
        let (left, right) = (&text[..i], &text[i + 1..]);
        left.ends_with(char::is_whitespace)
            && right.starts_with(char::is_whitespace)
            && one(left.trim_end())
            && one(right.trim_start())
    })
}

/// The `#tags` among the content's words.
fn tags(content: &str) -> Vec<String> {
    let mut tags = Vec::new();
    for word in content.split_whitespace() {
        let Some(tag) = word.strip_prefix('#') else {
            continue;
        };
        if tag.contains('#') {
            tags.extend(tag.split('#').filter(|t| !t.is_empty()).map(String::from));
        } else {
            tags.push(tag.to_string());
        }
    }
    tags
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Option<Observation> {
        observation(text, 1)
    }

    fn obs(
        category: Option<&str>,
        content: &str,
        tags: &[&str],
        context: Option<&str>,
    ) -> Observation {
        Observation {
            category: category.map(String::from),
            content: content.to_string(),
            tags: tags.iter().map(|t| t.to_string()).collect(),
            context: context.map(String::from),
            line: 1,
        }
    }

    #[test]
    fn category_tags_and_context() {
        assert_eq!(
            read("[decision] Use JWT #auth #security (after the review)"),
            Some(obs(
                Some("decision"),
                "Use JWT #auth #security",
                &["auth", "security"],
                Some("after the review")
            ))
        );
    }

    #[test]
    fn a_tag_alone_makes_an_observation_without_category() {
        assert_eq!(
            read("Ships on Fridays #process#release"),
            Some(obs(
                None,
                "Ships on Fridays #process#release",
                &["process", "release"],
                None
            ))
        );
        assert_eq!(read("Plain prose"), None);
    }

    #[test]
    fn tasks_links_clocks_and_markers_are_not_observations() {
        for text in [
            "[ ] buy milk #home",
            "[x] done #home",
            "[link](notes/a.md)",
            "[[Target]]",
            "[00:01:02] spoken line",
            "[1:02 - 1:05] spoken line",
            "[/] in progress",
            "[X] done",
        ] {
            assert_eq!(read(text), None, "{text}");
        }
        assert!(read("[a] letter category").is_some());
    }

    #[test]
    fn a_category_takes_the_rest_of_its_first_line() {
        assert_eq!(
            read("[idea] first line\nsecond line").map(|o| o.content),
            Some("first line".to_string())
        );
    }

    #[test]
    fn the_links_to_directive_is_removed() {
        assert_eq!(
            without_links_to_directive("see [[A]] #bm:links_to"),
            ("see [[A]]", true)
        );
        assert!(!without_links_to_directive("x#bm:links_to").1);
    }
}
