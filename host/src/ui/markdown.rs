//! A note as the page shows it: its frontmatter as fields, and its
//! markdown as HTML that went through ammonia, since every note may have
//! been written by an attacker. What survives is plain structure: no
//! script, no event handler, no style, no form, no image, and no link but
//! to http(s), mailto or a relative path.

use std::collections::HashSet;

use memcap_core::notes::{fields, frontmatter};
use pulldown_cmark::{Options, Parser, html};

/// The most frontmatter fields shown.
const MAX_FIELDS: usize = 50;

/// A note split into its frontmatter fields and its body.
pub struct Split<'a> {
    pub fields: Vec<(String, String)>,
    pub body: &'a str,
}

/// Splits `text` where the core finds its frontmatter block (so the page
/// and every command agree on what is frontmatter: a byte-order mark,
/// CRLF ends, a block that never closes), its fields read as every
/// command reads them (`memcap_core::notes::fields`: YAML, within its
/// bounds); a block that does not read shows as one `problem` field
/// saying why (the raw view shows its lines).
pub fn split(text: &str) -> Split<'_> {
    let (body, _) = frontmatter::body(text);
    let Some(block) = frontmatter::yaml(text) else {
        return Split {
            fields: Vec::new(),
            body,
        };
    };
    let fields = match fields::parse(block) {
        Ok(read) => read
            .into_iter()
            .take(MAX_FIELDS)
            .map(|(key, value)| (key, shown(value)))
            .collect(),
        Err(problem) => vec![("problem".to_owned(), problem)],
    };
    Split { fields, body }
}

/// A field's value as the page shows it.
fn shown(value: fields::Value) -> String {
    match value {
        fields::Value::Text(text) => text.unwrap_or_default(),
        fields::Value::List(items) => items.join(", "),
        fields::Value::Other => "(nested values: see the raw file)".to_owned(),
    }
}

/// `markdown` as sanitized HTML.
pub fn to_html(markdown: &str) -> String {
    let mut options = Options::empty();
    options.insert(Options::ENABLE_TABLES);
    options.insert(Options::ENABLE_STRIKETHROUGH);
    options.insert(Options::ENABLE_TASKLISTS);
    let mut raw = String::with_capacity(markdown.len() * 3 / 2);
    html::push_html(&mut raw, Parser::new_ext(markdown, options));
    sanitize(&raw)
}

/// Keeps only plain structure of `html`.
fn sanitize(html: &str) -> String {
    let schemes: HashSet<&str> = ["http", "https", "mailto"].into_iter().collect();
    ammonia::Builder::default()
        .rm_tags(["img"])
        .url_schemes(schemes)
        .link_rel(Some("noopener noreferrer nofollow"))
        .clean(html)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frontmatter_becomes_fields_and_the_body_follows() {
        let s = split("---\nname: Alpha\ntype: project\n  more\n---\n# Hi\n");
        assert_eq!(
            s.fields,
            vec![
                ("name".into(), "Alpha".into()),
                ("type".into(), "project more".into())
            ]
        );
        assert_eq!(s.body, "# Hi\n");
        assert!(split("# no frontmatter\n").fields.is_empty());
    }

    #[test]
    fn the_block_is_where_the_core_finds_it() {
        // CRLF ends and a byte-order mark, as an editor on Windows saves.
        let s = split("\u{feff}---\r\nname: Beta\r\n---\r\nbody\r\n");
        assert_eq!(s.fields, vec![("name".into(), "Beta".into())]);
        assert_eq!(s.body, "body\r\n");
        // A block that never closes is no frontmatter: all of it is shown.
        let open = "---\nname: Gamma\nno end\n";
        let s = split(open);
        assert!(s.fields.is_empty());
        assert_eq!(s.body, open);
        // What the core reads as the note's name is what the page shows.
        let text = "---\nname: Delta\ntype: user\n---\nx\n";
        let name = frontmatter::read(text, "d.md").name;
        assert_eq!(split(text).fields[0], ("name".into(), name));
    }

    #[test]
    fn fields_read_as_every_command_reads_them() {
        // Quotes, a colon inside a quoted value, a list, a nested map, null.
        let text =
            "---\nname: 'Epsilon: the plan'\ntags: [a, b]\nextra:\n  k: v\nupdated:\n---\nx\n";
        let s = split(text);
        assert_eq!(
            s.fields,
            vec![
                ("name".into(), "Epsilon: the plan".into()),
                ("tags".into(), "a, b".into()),
                ("extra".into(), "(nested values: see the raw file)".into()),
                ("updated".into(), String::new()),
            ]
        );
        assert_eq!(s.fields[0].1, frontmatter::read(text, "e.md").name);
        // A block that does not read is shown as the problem every command
        // reports, not as fields guessed from its lines.
        let broken = "---\nname: Zeta\nname: again\n---\nx\n";
        let s = split(broken);
        assert_eq!(s.fields.len(), 1);
        assert_eq!(s.fields[0].0, "problem");
        assert!(s.fields[0].1.contains("appears twice"), "{:?}", s.fields);
        assert_eq!(s.body, "x\n");
    }

    #[test]
    fn script_handlers_styles_and_javascript_links_do_not_survive() {
        let out = to_html(
            "<script>alert(1)</script>\n\n<img src=x onerror=alert(2)>\n\n\
             [a](javascript:alert(3)) [b](data:text/html,x) <a href=\"#\" onclick=\"x()\">c</a>\n\n\
             <div style=\"position:fixed;inset:0\">over</div>\n\n<svg onload=alert(4)></svg>",
        );
        for bad in [
            "<script",
            "onerror",
            "javascript:",
            "data:",
            "onclick",
            "style=",
            "<svg",
            "<img",
        ] {
            assert!(!out.contains(bad), "{bad} survived: {out}");
        }
        assert!(out.contains("over"));
    }
}
