//! A note body's observations and relations. pulldown-cmark finds the
//! blocks (paragraphs, list items, headings; code and HTML are skipped)
//! and the links in them; each block's source text then goes through the
//! line rules, the way basic-memory's markdown-it plugins read each
//! inline token.

use std::borrow::Cow;

use pulldown_cmark::{Event, LinkType, Options, Parser, Tag, TagEnd};

use super::observation::{Observation, observation};
use super::relation::{Relation, markdown_link, wikilinks};

/// What a body says: observations and relations, in the order written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Parsed {
    pub observations: Vec<Observation>,
    pub relations: Vec<Relation>,
}

/// One block of inline text and where it stands.
struct Block {
    /// Byte range in the body from its first to its last inline event.
    start: usize,
    end: usize,
    /// Markdown links' destinations, in order.
    links: Vec<String>,
    quoted: usize,
    in_list_item: bool,
    /// The column the block's continuation lines are indented to.
    indent: usize,
}

/// Reads `body` (a note without its frontmatter).
pub fn parse(body: &str) -> Parsed {
    if !may_hold_facts(body) {
        return Parsed::default();
    }
    let body = normalized(body);
    let body = body.as_ref();
    let mut out = Parsed::default();
    let mut block: Option<Block> = None;
    let mut lines = LineCursor::default();
    let (mut quoted, mut in_list_item, mut in_code) = (0usize, false, false);
    // Each open list item's content column, innermost last.
    let mut items: Vec<usize> = Vec::new();
    for (event, range) in Parser::new_ext(body, Options::empty()).into_offset_iter() {
        let inline = match &event {
            Event::Text(_)
            | Event::Code(_)
            | Event::InlineHtml(_)
            | Event::SoftBreak
            | Event::HardBreak => true,
            Event::Start(tag) => is_inline(tag),
            Event::End(tag) => is_inline_end(tag),
            _ => false,
        };
        if inline && !in_code {
            // An escaped character's range starts after its backslash.
            let start = range.start - usize::from(body[..range.start].ends_with('\\'));
            let open = block.get_or_insert_with(|| Block {
                start,
                end: range.end,
                links: Vec::new(),
                quoted,
                in_list_item,
                indent: items.last().copied().unwrap_or(0),
            });
            open.start = open.start.min(start);
            open.end = open.end.max(range.end);
            if let Event::Start(Tag::Link {
                link_type,
                dest_url,
                ..
            }) = &event
                && !matches!(link_type, LinkType::Autolink | LinkType::Email)
            {
                open.links.push(dest_url.to_string());
            }
            continue;
        }
        if let Some(done) = block.take() {
            read_block(body, &done, &mut lines, &mut out);
        }
        match event {
            Event::Start(Tag::CodeBlock(_)) => in_code = true,
            Event::End(TagEnd::CodeBlock) => in_code = false,
            Event::Start(Tag::BlockQuote(_)) => quoted += 1,
            Event::End(TagEnd::BlockQuote(_)) => quoted -= 1,
            Event::Start(Tag::Item) => {
                in_list_item = true;
                items.push(content_column(body, range.start));
            }
            Event::End(TagEnd::Item) => {
                in_list_item = false;
                items.pop();
            }
            _ => {}
        }
    }
    if let Some(done) = block.take() {
        read_block(body, &done, &mut lines, &mut out);
    }
    out
}

/// Whether `body` can hold an observation or a relation, read without
/// parsing it (most notes are prose under headings). Every relation is a
/// link, written with `[`; every observation has a `[category]` or a
/// `#tag`. A `#` that only opens an ATX heading (one to six at the start
/// of a line, then a space, a tab or the line's end) is in no block's
/// text: the heading's text starts after it.
fn may_hold_facts(body: &str) -> bool {
    body.contains('[')
        || body.split('\n').any(|line| {
            let run = line.bytes().take_while(|&b| b == b'#').count();
            let rest = &line[run..];
            match run {
                0 => rest.contains('#'),
                1..=6 if rest.is_empty() || rest.starts_with([' ', '\t', '\r']) => {
                    rest.contains('#')
                }
                _ => true,
            }
        })
}

/// Line breaks as `\n` (a CRLF or lone CR ends a line too) and NUL as
/// U+FFFD, as CommonMark reads them, so block text never carries a `\r`.
fn normalized(body: &str) -> Cow<'_, str> {
    if !body.contains(['\r', '\0']) {
        return Cow::Borrowed(body);
    }
    Cow::Owned(
        body.replace("\r\n", "\n")
            .replace('\r', "\n")
            .replace('\0', "\u{FFFD}"),
    )
}

fn is_inline(tag: &Tag) -> bool {
    matches!(
        tag,
        Tag::Emphasis | Tag::Strong | Tag::Strikethrough | Tag::Link { .. } | Tag::Image { .. }
    )
}

fn is_inline_end(tag: &TagEnd) -> bool {
    matches!(
        tag,
        TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough | TagEnd::Link | TagEnd::Image
    )
}

/// The column where a list item's text starts: after its marker and the
/// spaces that follow it (one, when the text is indented code or absent).
fn content_column(body: &str, item_start: usize) -> usize {
    let line_start = body[..item_start].rfind('\n').map_or(0, |i| i + 1);
    let line = &body[line_start..];
    let marker_start = item_start - line_start;
    let marker = &line[marker_start..];
    let digits = marker.bytes().take_while(u8::is_ascii_digit).count();
    let marker_len = digits + 1;
    let after = &marker[marker_len.min(marker.len())..];
    let spaces = after.bytes().take_while(|&b| b == b' ').count();
    let line_end = after.find('\n').unwrap_or(after.len());
    let spaces = if spaces == 0 || spaces > 4 || spaces >= line_end {
        1
    } else {
        spaces
    };
    marker_start + marker_len + spaces
}

/// The block's text as markdown-it gives it to its plugins: the source
/// from its first character, continuation lines without the container's
/// indentation and blockquote markers, trimmed.
fn block_text(body: &str, block: &Block) -> String {
    let source = &body[block.start..block.end];
    let mut lines = source.split('\n');
    let mut text = lines.next().unwrap_or("").to_string();
    for line in lines {
        let mut line = line;
        for _ in 0..block.quoted {
            let trimmed = line.trim_start_matches([' ', '\t']);
            match trimmed.strip_prefix('>') {
                Some(rest) => line = rest.strip_prefix(' ').unwrap_or(rest),
                None => break,
            }
        }
        let spaces = line.bytes().take_while(|&b| b == b' ').count();
        text.push('\n');
        text.push_str(&line[spaces.min(block.indent)..]);
    }
    text.trim().to_string()
}

/// The 1-based line of each block start, counted on from the last one
/// (blocks come in order), so a body is scanned for line breaks once.
#[derive(Default)]
struct LineCursor {
    offset: usize,
    breaks: usize,
}

impl LineCursor {
    fn line_at(&mut self, body: &str, offset: usize) -> u32 {
        debug_assert!(offset >= self.offset, "blocks come in order");
        self.breaks += body[self.offset..offset].matches('\n').count();
        self.offset = offset;
        self.breaks as u32 + 1
    }
}

fn read_block(body: &str, block: &Block, lines: &mut LineCursor, out: &mut Parsed) {
    let line = lines.line_at(body, block.start);
    let text = block_text(body, block);
    out.relations.extend(
        block
            .links
            .iter()
            .filter_map(|href| markdown_link(href, line)),
    );
    if block.quoted == 0 {
        out.observations.extend(observation(&text, line));
    }
    out.relations
        .extend(wikilinks(&text, block.in_list_item, line));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(parsed: &Parsed) -> Vec<(String, String)> {
        parsed
            .relations
            .iter()
            .map(|r| (r.kind.clone(), r.target.clone()))
            .collect()
    }

    #[test]
    fn a_body_passed_over_unparsed_holds_nothing_parsing_would_find() {
        let prose = "# Title\n\nPlain prose, no facts.\n\n## Part 1\n- a list item\n###\n";
        assert!(!may_hold_facts(prose));
        assert_eq!(super::parse(prose), Parsed::default());
        // Each of these holds a fact, so it must be parsed.
        for body in [
            "#tag at the start",
            "text with a #tag",
            "## C# notes\n",
            "####### seven is no heading",
            "#nospace",
            "  ## indented #tag",
            "- [idea] an observation",
            "See [[Other]].",
            "## Heading ## closed\n",
        ] {
            assert!(may_hold_facts(body), "{body:?} is passed over");
        }
        // And parsing finds what the check let through.
        assert!(!super::parse("#tag at the start").observations.is_empty());
        assert!(
            !super::parse("####### seven is no heading")
                .observations
                .is_empty()
        );
    }

    #[test]
    fn a_note_of_observations_and_relations() {
        let body = "# Auth\n\n## Observations\n- [decision] Use JWT #auth (review)\n- [idea] Rotate keys\n\n## Relations\n- implements [[Auth Service]]\n- depends_on [[Key Store]] (rotation)\n\nSee [[Roadmap]] and [the plan](plans/q3.md).\n";
        let parsed = parse(body);
        let observations = parsed.observations.iter();
        assert_eq!(
            observations
                .map(|o| (o.category.as_deref(), o.content.as_str(), o.line))
                .collect::<Vec<_>>(),
            [
                (Some("decision"), "Use JWT #auth", 4),
                (Some("idea"), "Rotate keys", 5)
            ]
        );
        let s = |a: &str, b: &str| (a.to_string(), b.to_string());
        assert_eq!(
            kinds(&parsed),
            [
                s("implements", "Auth Service"),
                s("depends_on", "Key Store"),
                s("links_to", "./plans/q3.md"),
                s("links_to", "Roadmap"),
            ]
        );
        assert_eq!(parsed.relations[1].context.as_deref(), Some("rotation"));
        assert_eq!(parsed.relations[3].line, 11);
    }

    #[test]
    fn code_blockquotes_and_tasks() {
        let body = "```\n- [idea] in code [[No]]\n```\n\n    - [idea] indented code\n\n> - [idea] quoted [[Quoted]]\n\n- [ ] task #home\n- [x] done";
        let parsed = parse(body);
        assert!(parsed.observations.is_empty(), "{:?}", parsed.observations);
        // A blockquote's links still count; its observations do not.
        assert_eq!(
            kinds(&parsed),
            [("links_to".to_string(), "Quoted".to_string())]
        );
    }

    #[test]
    fn nested_items_and_continuation_lines() {
        let body = "- [a] top\n  - [b] nested #t\n    more\n- tagged #x\n  continued";
        let parsed = parse(body);
        let contents = parsed.observations.iter().map(|o| o.content.as_str());
        assert_eq!(
            contents.collect::<Vec<_>>(),
            ["top", "nested #t", "tagged #x\ncontinued"]
        );
    }
}
