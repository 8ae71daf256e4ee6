//! One note as the graph keeps it: its names, its relations and where its
//! observations are, read from the note's body after the frontmatter.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use super::names;
use crate::notes::entry::Entry;
#[cfg(doc)]
use crate::notes::entry::FileStamp;
use crate::notes::{frontmatter, validity};

/// The category of an observation written with `#tags` and no `[category]`.
pub const UNCATEGORIZED: &str = "note";

/// The most relations, and the most observations, the graph takes from one
/// note (its first ones, in line order).
pub const MAX_NOTE_ITEMS: usize = 1_000;

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

/// One note in the graph: what it links to and where its observations
/// are. Its title, type and times are the catalog's (answers read them
/// there), so the graph does not keep them twice.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Node {
    /// Relative to the root: `projects/alpha.md`.
    pub path: String,
    /// The [`FileStamp::digest`] of the note it was read from.
    pub stamp: u64,
    /// The [`names::hash`] of each name it is found by ([`names::note_keys`]).
    pub names: Box<[u64]>,
    /// `None` for most notes of a large store, which hold none of it: the
    /// node then takes 32 bytes.
    content: Option<Box<Content>>,
}

/// What a note holds beyond its names.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
struct Content {
    /// The frontmatter's `permalink`; else [`Node::permalink`] makes one
    /// from the path.
    declared_permalink: Option<Box<str>>,
    links: Box<[Link]>,
    facts: Box<[Fact]>,
    /// Whether the note held more than the graph took.
    cut: bool,
}

impl Node {
    /// Its permalink: the frontmatter's, or one made from its path.
    pub fn permalink(&self) -> Cow<'_, str> {
        match self
            .content
            .as_ref()
            .and_then(|c| c.declared_permalink.as_ref())
        {
            Some(declared) => Cow::Borrowed(declared),
            None => Cow::Owned(names::slug(&self.path)),
        }
    }

    /// Its relations, in line order.
    pub fn links(&self) -> &[Link] {
        self.content.as_ref().map_or(&[], |c| &c.links)
    }

    /// The targets of its `supersedes` relations, as written.
    pub fn superseded(&self) -> impl Iterator<Item = &str> {
        self.links()
            .iter()
            .filter(|link| link.kind.eq_ignore_ascii_case(validity::SUPERSEDES))
            .map(|link| link.target.as_str())
    }

    /// Its observations, in line order.
    pub fn facts(&self) -> &[Fact] {
        self.content.as_ref().map_or(&[], |c| &c.facts)
    }

    /// Whether the note held more relations or observations than the
    /// graph took.
    pub fn cut(&self) -> bool {
        self.content.as_ref().is_some_and(|c| c.cut)
    }

    /// Relations and observations together.
    pub fn items(&self) -> usize {
        self.links().len() + self.facts().len()
    }

    /// The node of the note `entry` whose file holds `text`, with at most
    /// [`MAX_NOTE_ITEMS`] relations and as many observations, and at most
    /// `room` of both together (what the store has left).
    pub fn read(entry: &Entry, text: &str, room: usize) -> Node {
        let (body, before) = frontmatter::body(text);
        let parsed = super::parse(body);
        let declared = names::declared_permalink(entry.meta.permalink.as_deref());
        let permalink: Cow<str> =
            declared.map_or_else(|| Cow::Owned(names::slug(&entry.path)), Cow::Borrowed);
        // The notes its frontmatter says it supersedes are relations too,
        // written before the body's.
        let validity = validity::read(text);
        let found = validity.supersedes.len() + parsed.relations.len() + parsed.observations.len();
        let link_room = MAX_NOTE_ITEMS.min(room);
        let in_frontmatter = validity.supersedes.into_iter().map(|target| Link {
            kind: validity::SUPERSEDES.to_owned(),
            target,
            line: validity.line,
        });
        let links: Box<[Link]> = in_frontmatter
            .chain(parsed.relations.into_iter().map(|r| Link {
                kind: r.kind,
                target: r.target,
                line: r.line + before,
            }))
            .take(link_room)
            .collect();
        let fact_room = MAX_NOTE_ITEMS.min(room - links.len());
        let facts: Box<[Fact]> = parsed
            .observations
            .into_iter()
            .take(fact_room)
            .map(|o| Fact {
                category: o.category.unwrap_or_else(|| UNCATEGORIZED.to_owned()),
                tags: o.tags,
                line: o.line + before,
            })
            .collect();
        let cut = links.len() + facts.len() < found;
        let content =
            (declared.is_some() || !links.is_empty() || !facts.is_empty() || cut).then(|| {
                Box::new(Content {
                    declared_permalink: declared.map(Into::into),
                    links,
                    facts,
                    cut,
                })
            });
        Node {
            path: entry.path.clone(),
            stamp: entry.stamp.digest(),
            names: names::note_keys(&entry.path, &entry.meta.name, &permalink)
                .iter()
                .map(|key| names::hash(key))
                .collect(),
            content,
        }
    }
}
