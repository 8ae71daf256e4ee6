//! One note as the graph keeps it: its names, its relations and where its
//! observations are, read from the note's body after the frontmatter.

use serde::{Deserialize, Serialize};

use super::names;
use crate::notes::entry::{Entry, FileStamp};
use crate::notes::frontmatter;

/// The category of an observation written with `#tags` and no `[category]`.
pub const UNCATEGORIZED: &str = "note";

/// A relation as the index keeps it.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct Link {
    pub kind: String,
    pub target: String,
    /// The 1-based line of the file.
    pub line: u32,
}

/// An observation as the index keeps it (its text stays in the file).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct Fact {
    pub category: String,
    pub tags: Vec<String>,
    /// The 1-based line of the file.
    pub line: u32,
}

/// One note in the graph.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Node {
    /// Relative to the root: `projects/alpha.md`.
    pub path: String,
    pub stamp: FileStamp,
    pub title: String,
    pub permalink: String,
    pub links: Vec<Link>,
    pub facts: Vec<Fact>,
}

impl Node {
    /// The node of the note `entry` whose file holds `text`.
    pub fn read(entry: &Entry, text: &str) -> Node {
        let (body, before) = frontmatter::body(text);
        let parsed = super::parse(body);
        Node {
            path: entry.path.clone(),
            stamp: entry.stamp,
            title: entry.meta.name.clone(),
            permalink: names::permalink(&entry.path, entry.meta.permalink.as_deref()),
            links: parsed
                .relations
                .into_iter()
                .map(|r| Link {
                    kind: r.kind,
                    target: r.target,
                    line: r.line + before,
                })
                .collect(),
            facts: parsed
                .observations
                .into_iter()
                .map(|o| Fact {
                    category: o.category.unwrap_or_else(|| UNCATEGORIZED.to_owned()),
                    tags: o.tags,
                    line: o.line + before,
                })
                .collect(),
        }
    }
}
