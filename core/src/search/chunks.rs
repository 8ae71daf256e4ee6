//! A note's text as search chunks that follow its markdown: a heading
//! starts a new chunk, and a section longer than [`MAX_LINES`] is cut into
//! windows of that many lines that overlap by half, so a passage near a cut
//! lies whole in one of them. The frontmatter is left out (its name and
//! description are indexed with the note, not as a passage).

/// The most lines one chunk holds.
pub const MAX_LINES: usize = 20;

/// Lines shared by two windows of one long section.
const OVERLAP: usize = MAX_LINES / 2;

/// A passage of a note: lines `first..=last` (1-based) and their text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunk {
    pub first: u32,
    pub last: u32,
    pub text: String,
}

/// The chunks of `text`, in order. Blank-only passages make none; a note
/// that is all frontmatter is one chunk of it, so its title can be found.
pub fn chunks(text: &str) -> Vec<Chunk> {
    let lines: Vec<&str> = text.split('\n').collect();
    let body = frontmatter_end(&lines);
    let mut out = Vec::new();
    if body > 0 && lines[body..].iter().all(|l| l.trim().is_empty()) {
        windows(&lines, 0, body, &mut out);
        return out;
    }
    let mut start = body;
    for i in body..=lines.len() {
        let heading = i < lines.len() && i > start && lines[i].starts_with('#');
        if i == lines.len() || heading {
            windows(&lines, start, i, &mut out);
            start = i;
        }
    }
    out
}

/// The note's `name` and `description` from its frontmatter, one per line:
/// they are searched with every chunk of the note, as its title.
pub fn title(text: &str) -> String {
    let lines: Vec<&str> = text.split('\n').collect();
    let end = frontmatter_end(&lines);
    let mut out = String::new();
    for line in lines.iter().take(end.saturating_sub(1)).skip(1) {
        for key in ["name:", "description:"] {
            if let Some(value) = line.strip_prefix(key) {
                out.push_str(value.trim());
                out.push('\n');
            }
        }
    }
    out
}

/// The first line after a leading `---` … `---` block (0 when there is none).
fn frontmatter_end(lines: &[&str]) -> usize {
    if lines.first().map(|l| l.trim_end()) != Some("---") {
        return 0;
    }
    lines
        .iter()
        .skip(1)
        .position(|l| l.trim_end() == "---")
        .map_or(0, |i| i + 2)
}

/// Lines `start..end` as windows of at most [`MAX_LINES`].
fn windows(lines: &[&str], start: usize, end: usize, out: &mut Vec<Chunk>) {
    let mut first = start;
    while first < end {
        let last = (first + MAX_LINES).min(end);
        // Blank lines at either edge are no part of the passage.
        let blank = |i: &usize| lines[*i].trim().is_empty();
        let from = (first..last).find(|i| !blank(i));
        let to = (first..last).rev().find(|i| !blank(i));
        if let (Some(from), Some(to)) = (from, to) {
            out.push(Chunk {
                first: from as u32 + 1,
                last: to as u32 + 1,
                text: lines[from..=to].join("\n"),
            });
        }
        if last == end {
            break;
        }
        first += MAX_LINES - OVERLAP;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranges(text: &str) -> Vec<(u32, u32)> {
        chunks(text).iter().map(|c| (c.first, c.last)).collect()
    }

    #[test]
    fn headings_start_chunks_and_frontmatter_is_left_out() {
        let text = "---\nname: n\n---\n\n# A\none\n## B\ntwo\nthree";
        assert_eq!(ranges(text), [(5, 6), (7, 9)]);
        assert_eq!(chunks(text)[1].text, "## B\ntwo\nthree");
    }

    #[test]
    fn long_sections_become_overlapping_windows() {
        let text: Vec<String> = (1..=45).map(|i| format!("- line {i}")).collect();
        assert_eq!(
            ranges(&text.join("\n")),
            [(1, 20), (11, 30), (21, 40), (31, 45)]
        );
    }

    #[test]
    fn blank_text_has_no_chunks_and_a_bare_frontmatter_is_one() {
        assert!(chunks("\n\n   \n").is_empty());
        assert_eq!(ranges("---\nname: x\n---\n"), [(1, 3)]);
        assert_eq!(
            title("---\nname: x\ndescription: y z\ntype: user\n---\n"),
            "x\ny z\n"
        );
        assert_eq!(title("name: not frontmatter\n"), "");
    }
}
