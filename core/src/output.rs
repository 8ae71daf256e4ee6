//! What a command returns, as data: paths, sizes, lines, notes and pages,
//! never finished prose. `render` turns it into the SDK's text (byte for
//! byte) or into JSON for programs.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use crate::error::ToolError;
use crate::vocab::{NoteType, Source};

/// One command's result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "output", rename_all = "snake_case")]
pub enum Output {
    /// `view` of a directory: entries two levels deep, sorted depth first.
    Listing {
        path: String,
        size: u64,
        entries: Vec<ListedEntry>,
        /// The listing stopped at `limit` entries.
        truncated: Option<usize>,
    },
    /// `view` of a file: the lines selected, numbered from `first_line`.
    FileLines {
        path: String,
        first_line: usize,
        lines: Selection,
        /// The SHA-256 of the whole file (hex), for a later write's precondition.
        sha256: String,
    },
    Created {
        path: String,
        /// The SHA-256 of what the file now holds (hex).
        sha256: String,
        #[serde(flatten)]
        index: IndexUpkeep,
    },
    /// `str_replace` and `memory_update`: the lines around the change.
    Edited {
        path: String,
        first_line: usize,
        snippet: Vec<String>,
        sha256: String,
        #[serde(flatten)]
        index: IndexUpkeep,
    },
    Inserted {
        path: String,
        sha256: String,
        #[serde(flatten)]
        index: IndexUpkeep,
    },
    Deleted {
        path: String,
        #[serde(flatten)]
        index: IndexUpkeep,
    },
    Renamed {
        from: String,
        to: String,
        /// The moved file's SHA-256; none for a directory (or a file past
        /// the size limit).
        #[serde(skip_serializing_if = "Option::is_none")]
        sha256: Option<String>,
        #[serde(flatten)]
        index: IndexUpkeep,
    },
    /// `memory_write`: a note saved new, or replaced.
    NoteSaved {
        path: String,
        note_type: NoteType,
        name: String,
        replaced: bool,
        sha256: String,
        #[serde(flatten)]
        index: IndexUpkeep,
    },
    NoteDeleted {
        path: String,
        #[serde(flatten)]
        index: IndexUpkeep,
    },
    /// `memory_view`: MEMORY.md as it now is ("" for an empty store).
    Index { text: String },
    /// `memory_view` with `all`: one page of every note's metadata.
    NoteList {
        total: usize,
        notes: Vec<NoteInfo>,
        page: Page,
    },
    /// `memory_read` without topics: the index (on the first page) and one
    /// page of every memory file's path.
    MemoryFiles {
        index: Option<String>,
        total: usize,
        paths: Vec<String>,
        page: Page,
    },
    /// `memory_read` with topics: one page of the notes they match.
    TopicNotes {
        notes: Vec<NoteText>,
        page: usize,
        pages: usize,
        /// Notes on the pages after this one.
        more: usize,
        /// Topics no note matches.
        unknown: Vec<String>,
    },
    /// `memory_search`: the best passages for a query.
    Search(SearchAnswer),
    /// `memory_get`: lines of one file.
    Get(GetAnswer),
    /// `memory_stats`: what the search index holds and how fresh it is.
    Stats(StatsAnswer),
    /// `build_context`: notes a URL names, with what they say and the notes
    /// their relations reach.
    Context(ContextAnswer),
    /// `recent_activity`: what changed lately, newest first.
    Activity(ActivityAnswer),
    /// `memory_history` of a path: its versions, newest first, a page at
    /// a time.
    History {
        path: String,
        versions: Vec<VersionInfo>,
        page: Page,
    },
    /// `memory_history` with a version: what it held.
    OldVersion {
        path: String,
        version: VersionInfo,
        /// The content as text, cut at the answer's bound.
        text: String,
        /// The content is not UTF-8 text: `text` is empty.
        binary: bool,
    },
    /// `memory_review`: what needs a decision (nothing is changed).
    Review(ReviewAnswer),
    /// `memory_guide`: the whole protocol, with examples.
    Guide { text: String },
    /// `prompt`: the memory protocol and the index, for a system prompt.
    Prompt { text: String },
    /// `changed`: how many of the reported paths were taken in.
    Refreshed {
        paths: usize,
        #[serde(flatten)]
        index: IndexUpkeep,
    },
    /// `record_turn`: a turn appended to its session's file.
    TurnRecorded {
        path: String,
        session: String,
        /// Turns the session's file holds now.
        turns: usize,
        /// Oldest turns dropped to keep the file within its bound.
        dropped: usize,
        #[serde(flatten)]
        index: IndexUpkeep,
    },
}

/// What happened to the index after a change: the change stands either way.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct IndexUpkeep {
    /// Why MEMORY.md could not be brought up to date, if it could not: the
    /// error's message, as agents read it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index_problem: Option<String>,
}

/// Some of a text's lines (split at LF), kept as the text and a range so
/// that showing a file copies nothing. Serialised as the list of lines;
/// two selections are equal when their lines are.
#[derive(Clone, Debug)]
pub struct Selection {
    text: String,
    /// Lines `start..end`, counted from 0.
    start: usize,
    end: usize,
}

impl Selection {
    /// Lines `start..end` of `text` (an empty selection when `end <= start`).
    pub fn new(text: String, start: usize, end: usize) -> Self {
        Self {
            text,
            start,
            end: end.max(start),
        }
    }

    pub fn lines(&self) -> impl Iterator<Item = &str> {
        self.text
            .split('\n')
            .skip(self.start)
            .take(self.end - self.start)
    }
}

impl PartialEq for Selection {
    fn eq(&self, other: &Self) -> bool {
        self.lines().eq(other.lines())
    }
}

impl Eq for Selection {}

impl Serialize for Selection {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.lines())
    }
}

/// Read back from its list of lines: the lines joined with LF, all selected.
impl<'de> Deserialize<'de> for Selection {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let lines = Vec::<String>::deserialize(d)?;
        let end = lines.len();
        Ok(Self::new(lines.join("\n"), 0, end))
    }
}

/// One entry of a listing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListedEntry {
    /// `/memories/...`, as the listing shows it.
    pub path: String,
    pub size: u64,
    pub is_dir: bool,
}

/// One note's metadata, as `memory_view` with `all` lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NoteInfo {
    pub path: String,
    pub name: String,
    pub note_type: NoteType,
    /// A `type` the note declares that is not one of the four.
    pub declared_type: Option<String>,
    pub description: String,
    pub updated: Option<String>,
    pub tags: Vec<String>,
    pub permalink: Option<String>,
    pub problem: Option<String>,
    pub frontmatter: bool,
    /// Relations the note writes (links to other notes).
    pub relations: u32,
    /// `valid_until` as written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub valid_until: Option<String>,
    /// The notes that say they supersede it (`/memories/...`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub superseded_by: Vec<String>,
    /// Whether it is past its `valid_until`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub expired: bool,
}

/// One note in full, as `memory_read` returns it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NoteText {
    pub path: String,
    pub note_type: NoteType,
    pub name: String,
    /// The text, cut after its last whole line within the page's bytes.
    pub text: Shown,
    /// When cut: the note's size in bytes and the first line not shown.
    pub cut: Option<Cut>,
    /// The notes that say they supersede it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub superseded_by: Vec<String>,
    /// Whether it is past its `valid_until`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub expired: bool,
}

/// A note's text, or why it is not shown (`{"content": …}` or
/// `{"not_shown": …}`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Shown {
    Content(String),
    /// The error's message, as agents read it.
    NotShown(String),
}

impl From<Result<String, ToolError>> for Shown {
    fn from(text: Result<String, ToolError>) -> Self {
        match text {
            Ok(text) => Shown::Content(text),
            Err(e) => Shown::NotShown(e.to_string()),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cut {
    pub size: usize,
    pub next_line: usize,
}

/// One page of a long answer. Pages count from 1; a page past the last one
/// is empty.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Page {
    pub number: usize,
    pub pages: usize,
    pub per_page: usize,
    pub total: usize,
}

impl Page {
    pub fn new(asked: Option<u32>, total: usize, per_page: usize) -> Self {
        Self {
            number: asked.map_or(1, |n| (n as usize).max(1)),
            pages: total.div_ceil(per_page).max(1),
            per_page,
            total,
        }
    }

    /// Index of the first item on this page.
    pub fn first(&self) -> usize {
        (self.number - 1).saturating_mul(self.per_page)
    }
}

/// `memory_search`'s answer, in the shape agents know from other memory
/// tools (camelCase keys).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchAnswer {
    pub query: String,
    pub results: Vec<SearchResult>,
    /// Results at or above `minScore` (counted up to 40), before
    /// `maxResults` cut them.
    pub total_found: usize,
    /// `bm25`, or `hybrid` when vectors took part.
    pub method: Cow<'static, str>,
    /// Why the search was less than it could be (vectors off, a source
    /// missing), when it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub degraded: Option<String>,
    pub stats: SearchStats,
    /// Passages found in notes superseded by another or past their
    /// `valid_until`, left out among those read back for the answer
    /// (`includeSuperseded` gives them).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub left_out: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// One passage `memory_search` found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SearchResult {
    pub path: String,
    /// `first-last`, as `memory_get` takes them.
    pub lines: String,
    pub text: String,
    pub score: f32,
    pub source: Source,
    /// The observations and relations written on the passage's lines.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub observations: Vec<ObservationItem>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub relations: Vec<WrittenRelation>,
    /// The notes that say they supersede this one (asked for with
    /// `includeSuperseded`).
    #[serde(
        rename = "supersededBy",
        default,
        skip_serializing_if = "Vec::is_empty"
    )]
    pub superseded_by: Vec<String>,
    /// Whether the note is past its `valid_until`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub expired: bool,
    /// Who last changed the passage's lines, the newest change's actor
    /// first (none when the history is off).
    #[serde(rename = "changedBy", default, skip_serializing_if = "Vec::is_empty")]
    pub changed_by: Vec<String>,
    /// When the newest of those changes was made (RFC 3339).
    #[serde(rename = "changedAt", skip_serializing_if = "Option::is_none")]
    pub changed_at: Option<String>,
}

/// A relation as written on a line (a search does not resolve it:
/// `build_context` does).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WrittenRelation {
    pub relation_type: String,
    pub target: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    pub line: u32,
}

/// The size of what was searched.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchStats {
    pub total_files: usize,
    pub total_chunks: u32,
}

/// `memory_get`'s answer: lines of one file, as it holds them now.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetAnswer {
    pub path: String,
    /// The lines given, `first-last`.
    pub lines: String,
    pub text: String,
    pub total_lines: usize,
    /// How to read on, when the cap stopped short of what was asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub more: Option<String>,
    /// Who last changed the lines given, the newest change's actor first
    /// (none when the history is off).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changed_by: Vec<String>,
    /// When the newest of those changes was made (RFC 3339).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changed_at: Option<String>,
}

/// `memory_stats`' answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StatsAnswer {
    pub total_files: usize,
    pub total_chunks: u32,
    /// When the index last changed (UTC, RFC 3339), if it exists.
    pub indexed_at: Option<String>,
    pub sources: Vec<Source>,
    /// Bytes of memcap's index files on disk.
    pub index_bytes: u64,
    /// `bm25`, or `hybrid` when vectors take part.
    pub method: Cow<'static, str>,
    pub vectors: bool,
    /// The embedding model, when vectors are on.
    pub model: Option<String>,
    /// Notes other programs edited in place since the index took them:
    /// searches see the new text when the catalog's sweep reaches them
    /// (within 30 seconds, then a slice of the store a call, one a second
    /// at most).
    pub changed_since_indexed: usize,
    /// The graph: notes, observations, relations, and relations whose
    /// target no note has yet.
    pub entities: usize,
    pub observations: usize,
    pub relations: usize,
    pub unresolved: usize,
    /// Directories and notes memcap may not read (permissions changed
    /// behind its back): skipped, what was known of them kept.
    pub unreadable: Vec<String>,
    /// Notes the indexes took only in part (past a bound), at most 100.
    pub cut: Vec<String>,
    /// The version history: versions kept, their bytes, the oldest's time.
    pub history_versions: u64,
    pub history_bytes: u64,
    pub history_since: Option<String>,
    /// What the history's upkeep (or this read of it) last failed at, with
    /// its time, until it succeeds again.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history_problem: Option<String>,
}

/// A note as the graph's answers name it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GraphNote {
    /// `/memories/projects/alpha.md`.
    pub path: String,
    pub title: String,
    /// Its stable id (`memory://` + this names it).
    pub permalink: String,
    pub note_type: String,
    /// When its file last changed (UTC, RFC 3339), when the file says.
    pub changed: Option<String>,
}

/// An observation as written: `- [category] content #tags (context)`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObservationItem {
    pub category: String,
    pub content: String,
    pub tags: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// Its line in the file (1-based).
    pub line: u32,
}

/// A relation as written, and the note it reaches.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RelationItem {
    pub relation_type: String,
    /// As written in `[[ ]]` (or a markdown link's path).
    pub target: String,
    /// The path of the note it reaches; `None` while no note has that name.
    pub resolved: Option<String>,
    pub context: Option<String>,
    /// Its line in the file (1-based).
    pub line: u32,
}

/// A note a URL named, with its observations and relations.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextNote {
    pub note: GraphNote,
    pub observations: Vec<ObservationItem>,
    pub relations: Vec<RelationItem>,
    /// Observations and relations past the ones shown.
    pub more_observations: usize,
    pub more_relations: usize,
    /// The notes it says it supersedes, and those that say they supersede
    /// it (paths): the chain both ways.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub supersedes: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub superseded_by: Vec<String>,
    /// Whether it is past its `valid_until`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub expired: bool,
}

/// A note reached from a primary one, and the relation that reached it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RelatedNote {
    pub note: GraphNote,
    pub relation_type: String,
    /// The relation's holder and the note it reaches (paths): the related
    /// note is one of the two.
    pub from: String,
    pub to: String,
    /// Steps from the primary note (1 to the depth asked).
    pub depth: u32,
    /// The primary note it was reached from (path).
    pub primary: String,
}

/// `build_context`'s answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextAnswer {
    pub url: String,
    pub depth: u32,
    pub timeframe: Option<String>,
    /// This page's primary notes.
    pub primary: Vec<ContextNote>,
    pub related: Vec<RelatedNote>,
    /// Related notes past what one answer shows (its byte budget).
    pub more_related: usize,
    /// Pages over the primary notes.
    pub page: Page,
}

/// One change `recent_activity` reports.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ActivityItem {
    /// `entity` (a note), `observation` or `relation`.
    pub item_type: Cow<'static, str>,
    pub note: GraphNote,
    /// For an entity: what the note holds now.
    pub observations: usize,
    pub relations: usize,
    pub observation: Option<ObservationItem>,
    pub relation: Option<RelationItem>,
}

/// `recent_activity`'s answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ActivityAnswer {
    pub timeframe: String,
    /// When the timeframe starts (UTC, RFC 3339).
    pub since: String,
    /// The `type` asked for, if any.
    pub item_type: Option<String>,
    pub items: Vec<ActivityItem>,
    pub page: Page,
}

/// `memory_review`'s answer: four lists, each at most
/// [`crate::commands::memory_review::MAX_ITEMS`] long, with its full count.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReviewAnswer {
    /// The timeframe of `changedByOthers`, as asked.
    pub timeframe: String,
    /// When it starts (UTC, RFC 3339).
    pub since: String,
    /// Who asked: their changes are not listed.
    pub actor: String,
    pub duplicates: Listed<Duplicates>,
    /// How far the search for notes alike in meaning got (absent when the
    /// host has no model to compare with): a call that runs out of time
    /// says so rather than list fewer duplicates in silence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compared_by_meaning: Option<Compared>,
    pub expired: Listed<Expired>,
    pub superseded_linked: Listed<SupersededLinked>,
    pub changed_by_others: Listed<VersionInfo>,
    /// Notes in all.
    pub notes: usize,
}

/// Some of a list, and how long the whole list is.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Listed<T> {
    pub items: Vec<T>,
    pub total: usize,
}

/// None of an empty list (whatever `T` is: a derived `Default` would ask
/// it of `T`).
impl<T> Default for Listed<T> {
    fn default() -> Self {
        Self {
            items: Vec::new(),
            total: 0,
        }
    }
}

/// How far `memory_review`'s comparison by meaning got.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Compared {
    /// Notes compared with each other.
    pub notes: usize,
    /// Notes there were to compare (those not already listed as the same
    /// title or description, and not superseded).
    pub of: usize,
    /// Whether the comparison ran to its end; `false` when the call ran
    /// out of time (some likely duplicates may then be missing).
    pub whole: bool,
}

/// Notes that look like one note written twice.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Duplicates {
    /// `/memories/...`, sorted.
    pub paths: Vec<String>,
    /// What they share.
    pub same: Shared,
    /// The shared title or description (cut to one short line).
    pub text: String,
}

/// What likely duplicates share.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Shared {
    Title,
    Description,
    /// Titles and descriptions close in meaning (the embedder's vectors).
    Meaning,
}

impl std::fmt::Display for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Shared::Title => "title",
            Shared::Description => "description",
            Shared::Meaning => "meaning",
        })
    }
}

/// A note past its `valid_until`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Expired {
    pub path: String,
    /// As written (cut to one short line).
    pub valid_until: String,
}

/// A superseded note other notes still link to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SupersededLinked {
    pub path: String,
    pub superseded_by: Vec<String>,
    /// The notes that link to it by another relation.
    pub linked_from: Vec<String>,
}

/// One version as answers show it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VersionInfo {
    pub version: u64,
    /// `/memories/...`
    pub path: String,
    /// `created`, `modified`, `deleted`, `renamed` or `restored` (owned
    /// only when read back from an answer).
    pub op: Cow<'static, str>,
    /// A rename's old path (`/memories/...`).
    pub from: Option<String>,
    /// UTC, RFC 3339.
    pub time: String,
    pub actor: String,
    pub actor_id: Option<String>,
    pub sha256: Option<String>,
    pub size: u64,
    /// Who erased the content, and when (RFC 3339).
    pub redacted: Option<RedactedBy>,
}

/// Who erased a version's content, and when (RFC 3339).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RedactedBy {
    pub by: String,
    pub at: String,
}

impl VersionInfo {
    pub fn of(v: &crate::history::Version) -> Self {
        let shown = crate::history::version::shown;
        Self {
            version: v.v,
            path: shown(&v.path),
            op: Cow::Borrowed(v.op.as_str()),
            from: v.from.as_deref().map(shown),
            time: crate::text::rfc3339(v.t),
            actor: v.actor.clone(),
            actor_id: v.actor_id.clone(),
            sha256: v.sha256.clone(),
            size: v.size,
            redacted: v.redacted.as_ref().map(|r| RedactedBy {
                by: r.actor.clone(),
                at: crate::text::rfc3339(r.t),
            }),
        }
    }
}
