//! What the last changes left at their paths, for a change that finds a
//! file as one of them left it: the log's newest version, and while a warm
//! instance keeps the log's tail, its own last changes. A content known so
//! is the newest version of a file still there, which retention keeps, so
//! replacing or removing it needs neither a hash by reading nor a copy.

use super::version::Version;
use crate::storage::{Kind, Meta, Stamp};

/// How many contents are remembered.
const RECENT: usize = 32;

/// The contents the last changes left, newest last, one a path.
#[derive(Default)]
pub struct Recent(Vec<Left>);

/// A content a change left at a path: its stamp there, when the change
/// took it, what the catalog found there right after ([`Recent::seen`]),
/// and its SHA-256.
struct Left {
    path: String,
    stamp: Option<Stamp>,
    seen: Option<Seen>,
    sha256: String,
}

/// A file's size and times as a stat right after a write found them. A
/// file put in its place since has another status-change time (or, as
/// wasmtime reports it, creation time: [`Meta::changed`]), which no
/// program can set; one written over in place another modification time.
/// A program that does either within one tick of the file system's clock,
/// with the same size, or writes over it in place and sets its
/// modification time back, is as unseen as it is to a stamp
/// ([`Recent::known`]), which the history already trusts for larger
/// files.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Seen {
    size: u64,
    modified: (u64, u32),
    changed: (u64, u32),
}

impl Seen {
    fn of(meta: &Meta) -> Option<Self> {
        if meta.kind != Kind::File {
            return None;
        }
        Some(Self {
            size: meta.size,
            modified: meta.modified?,
            changed: meta.changed?,
        })
    }
}

impl Recent {
    /// Remembers the contents `versions` (on record) left, so a later
    /// change that replaces one of them, still as it was left, knows its
    /// hash ([`Recent::known`], [`Recent::left`]).
    pub fn remember(&mut self, versions: &[Version]) {
        for v in versions {
            let gone = |l: &Left| l.path == v.path || v.from.as_deref() == Some(&l.path);
            self.0.retain(|l| !gone(l));
            if let Some(sha256) = &v.sha256 {
                if self.0.len() == RECENT {
                    self.0.remove(0);
                }
                self.0.push(Left {
                    path: v.path.clone(),
                    stamp: v.stamp.filter(|s| s.hash.is_some()),
                    seen: None,
                    sha256: sha256.clone(),
                });
            }
        }
    }

    /// The hash of the content at `path` whose stamp is `stamp`, when one
    /// of the last changes left it so: known without reading or hashing
    /// it. While the tail is kept no other change reached the log, and a
    /// file another program wrote has another stamp.
    pub fn known(&self, path: &str, stamp: &Stamp) -> Option<String> {
        self.0
            .iter()
            .rev()
            .find(|l| l.path == path && l.stamp.as_ref() == Some(stamp))
            .map(|l| l.sha256.clone())
    }

    /// Whether the newest change at `path` left a content not yet
    /// [`Recent::seen`] there.
    pub fn unseen(&self, path: &str) -> bool {
        self.newest(path).is_some_and(|l| l.seen.is_none())
    }

    /// Takes what a stat found at `path` right after this call wrote the
    /// content with hash `sha256` there (the catalog's look at what it
    /// wrote), if that is what the newest change at `path` left: a later
    /// change that finds the file so knows its content without reading it
    /// ([`Recent::seen_as`]).
    pub fn seen(&mut self, path: &str, sha256: &str, meta: &Meta) {
        if let Some(left) = self.0.iter_mut().rev().find(|l| l.path == path)
            && left.sha256 == sha256
            && left.seen.is_none()
        {
            left.seen = Seen::of(meta);
        }
    }

    /// The hash of the content at `path`, when the newest change there
    /// left it and the file's metadata is still `meta`, as it was seen
    /// right after ([`Recent::seen`]).
    pub fn seen_as(&self, path: &str, meta: &Meta) -> Option<String> {
        let left = self.newest(path)?;
        (left.seen.is_some() && left.seen == Seen::of(meta)).then(|| left.sha256.clone())
    }

    fn newest(&self, path: &str) -> Option<&Left> {
        self.0.iter().rev().find(|l| l.path == path)
    }

    /// Whether the newest of the last changes at `path` left the content
    /// with hash `sha256` there: a file found holding it (read and hashed,
    /// for a content too small to be stamped) needs no version of its own
    /// and no copy kept again.
    pub fn left(&self, path: &str, sha256: &str) -> bool {
        self.newest(path).is_some_and(|l| l.sha256 == sha256)
    }
}

/// Versions and stamps for tests of what the log remembers (here and in
/// `log.rs`).
#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::history::version::Op;

    pub(in crate::history) fn version(
        path: &str,
        op: Op,
        from: Option<&str>,
        id: u64,
        sha: Option<&str>,
    ) -> Version {
        Version {
            t: 0,
            stamp: sha.map(|_| stamp(id)),
            ..Version::sample(id, op, path, from, sha)
        }
    }

    pub(in crate::history) fn stamp(id: u64) -> Stamp {
        Stamp {
            size: 1,
            modified: Some((id, 0)),
            hash: Some((id, 0)),
        }
    }

    #[test]
    fn a_kept_tail_knows_what_its_changes_left_until_the_file_moves_on() {
        let mut recent = Recent::default();
        recent.remember(&[
            version("a.md", Op::Created, None, 1, Some("one")),
            version("b.md", Op::Created, None, 2, Some("two")),
        ]);
        assert_eq!(recent.known("a.md", &stamp(1)).as_deref(), Some("one"));
        // Another stamp is another content (another program's write).
        assert_eq!(recent.known("a.md", &stamp(2)), None);
        recent.remember(&[version("a.md", Op::Modified, None, 3, Some("three"))]);
        assert_eq!(recent.known("a.md", &stamp(1)), None);
        assert_eq!(recent.known("a.md", &stamp(3)).as_deref(), Some("three"));
        // A rename takes what it moved away from its old path; a removal
        // leaves nothing known.
        recent.remember(&[version("c.md", Op::Renamed, Some("b.md"), 4, None)]);
        assert_eq!(recent.known("b.md", &stamp(2)), None);
        recent.remember(&[version("a.md", Op::Deleted, None, 5, None)]);
        assert_eq!(recent.known("a.md", &stamp(3)), None);
    }

    #[test]
    fn a_small_content_left_without_a_stamp_is_known_by_its_hash_only_where_it_was_left() {
        let mut recent = Recent::default();
        let unstamped = |path: &str, op, from: Option<&str>, id, sha| Version {
            stamp: None,
            ..version(path, op, from, id, sha)
        };
        recent.remember(&[
            unstamped("a.md", Op::Created, None, 1, Some("one")),
            unstamped("b.md", Op::Created, None, 2, Some("two")),
        ]);
        assert!(recent.left("a.md", "one"));
        // No stamp to know it by, and nowhere else.
        assert_eq!(recent.known("a.md", &stamp(1)), None);
        assert!(!recent.left("a.md", "two"), "what another path holds");
        assert!(!recent.left("c.md", "one"), "a path it never wrote");
        // What a file holds now is what its newest change left.
        recent.remember(&[unstamped("a.md", Op::Modified, None, 3, Some("three"))]);
        assert!(!recent.left("a.md", "one"));
        assert!(recent.left("a.md", "three"));
        // Moved away or removed: nothing left there.
        recent.remember(&[unstamped("c.md", Op::Renamed, Some("b.md"), 4, Some("two"))]);
        assert!(!recent.left("b.md", "two"));
        assert!(recent.left("c.md", "two"));
        recent.remember(&[unstamped("a.md", Op::Deleted, None, 5, None)]);
        assert!(!recent.left("a.md", "three"));
    }

    fn meta(size: u64, modified: u64, changed: u64) -> Meta {
        Meta {
            kind: Kind::File,
            size,
            modified: Some((modified, 7)),
            changed: Some((changed, 9)),
        }
    }

    #[test]
    fn a_content_seen_right_after_its_write_is_known_while_the_file_is_as_seen() {
        let mut recent = Recent::default();
        recent.remember(&[Version {
            stamp: None,
            ..version("a.md", Op::Created, None, 1, Some("one"))
        }]);
        assert!(recent.unseen("a.md"));
        // Another content than the one left there is not taken for it.
        recent.seen("a.md", "two", &meta(3, 10, 10));
        assert_eq!(recent.seen_as("a.md", &meta(3, 10, 10)), None);
        recent.seen("a.md", "one", &meta(3, 10, 10));
        assert!(!recent.unseen("a.md"));
        assert_eq!(
            recent.seen_as("a.md", &meta(3, 10, 10)).as_deref(),
            Some("one")
        );
        // Seen once: a later look (another content's) does not move it.
        recent.seen("a.md", "one", &meta(3, 11, 11));
        assert_eq!(
            recent.seen_as("a.md", &meta(3, 10, 10)).as_deref(),
            Some("one")
        );
        // Written over in place, replaced, grown, or not a file: unknown.
        for other in [meta(3, 12, 12), meta(3, 10, 12), meta(4, 10, 10)] {
            assert_eq!(recent.seen_as("a.md", &other), None);
        }
        let link = Meta {
            kind: Kind::Link,
            ..meta(3, 10, 10)
        };
        assert_eq!(recent.seen_as("a.md", &link), None);
        assert_eq!(recent.seen_as("b.md", &meta(3, 10, 10)), None);
        // Its next change leaves a content not seen yet.
        recent.remember(&[Version {
            stamp: None,
            ..version("a.md", Op::Modified, None, 2, Some("two"))
        }]);
        assert_eq!(recent.seen_as("a.md", &meta(3, 10, 10)), None);
        assert!(recent.unseen("a.md"));
        // A metadata without times is never taken.
        let timeless = Meta {
            modified: None,
            ..meta(3, 10, 10)
        };
        recent.seen("a.md", "two", &timeless);
        assert_eq!(recent.seen_as("a.md", &timeless), None);
    }

    #[test]
    fn a_kept_tail_remembers_only_the_newest_contents() {
        let mut recent = Recent::default();
        let many: Vec<Version> = (0..RECENT as u64 + 8)
            .map(|i| version(&format!("n{i}.md"), Op::Created, None, i, Some("x")))
            .collect();
        recent.remember(&many);
        assert_eq!(recent.0.len(), RECENT);
        assert_eq!(recent.known("n0.md", &stamp(0)), None);
        let last = RECENT as u64 + 7;
        assert!(recent.known(&format!("n{last}.md"), &stamp(last)).is_some());
    }
}
