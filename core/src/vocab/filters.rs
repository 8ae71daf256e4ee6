//! What a search keeps besides its source.

use super::timeframe::Timeframe;

/// What a search keeps besides its source (each given list must match, any
/// of its items will do, case aside): passages whose lines hold an
/// observation of one of `categories` and tagged with one of `tags`, in
/// notes of one of `types` changed since `after`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SearchFilters {
    pub categories: Vec<String>,
    pub tags: Vec<String>,
    pub types: Vec<String>,
    /// With the words it was given in.
    pub after: Option<(String, Timeframe)>,
    /// Also passages of notes superseded by another or past their
    /// `valid_until`, after the others and marked (they are left out
    /// otherwise). Not a filter of the graph's: [`SearchFilters::is_empty`]
    /// leaves it aside.
    pub include_superseded: bool,
    /// Passages one of whose lines one of these actors (a name or an
    /// actor's id) changed last, as the history says (blame). Not a
    /// filter of the graph's either.
    pub by: Vec<String>,
    /// Passages none of whose lines one of these actors changed last.
    pub not_by: Vec<String>,
}

impl SearchFilters {
    pub fn is_empty(&self) -> bool {
        self.categories.is_empty()
            && self.tags.is_empty()
            && self.types.is_empty()
            && self.after.is_none()
    }
}
