//! Turns a model-facing `/memories/...` path into a path relative to the root.
//!
//! This is purely lexical: nothing here touches the file system. Containment is
//! enforced again, by construction, when WASI resolves the result against the
//! root descriptor.

use crate::error::{Result, ToolError};
use crate::text::unsafe_char;

pub use crate::layout::{RESERVED, ROOT};
const MAX_NAME_BYTES: usize = 255;
const MAX_PATH_BYTES: usize = 4096;

/// A validated path inside the root, as `/`-joined components ("" is the root).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemPath {
    components: Vec<String>,
}

impl MemPath {
    /// Parses `path` as sent by the model.
    ///
    /// Accepts exactly `/memories` or `/memories/...`; empty and `.` components
    /// are dropped and `..` removes the previous one, but may never climb above
    /// the root. Unlike the SDK, `/memoriesX` is refused rather than read as
    /// `/memories/X`, and `/memories/../memories` is an escape (no temporary
    /// excursions outside the root, as in WASI).
    pub fn parse(path: &str) -> Result<Self> {
        let rest = match path.strip_prefix(ROOT) {
            Some(rest) if rest.is_empty() || rest.starts_with('/') => rest,
            Some(_) => {
                return Err(ToolError::OutsideRoot { path: path.into() });
            }
            None => {
                return Err(ToolError::NotUnderRoot { path: path.into() });
            }
        };
        if path.contains('\0') {
            return Err(ToolError::PathHasNul { path: path.into() });
        }
        if path.len() > MAX_PATH_BYTES {
            return Err(ToolError::PathTooLong {
                path: path.into(),
                max: MAX_PATH_BYTES,
            });
        }
        let mut components: Vec<String> = Vec::new();
        for part in rest.split('/') {
            match part {
                "" | "." => {}
                ".." => {
                    if components.pop().is_none() {
                        return Err(ToolError::escape(path));
                    }
                }
                name if name.len() > MAX_NAME_BYTES => {
                    return Err(ToolError::NameTooLong {
                        path: path.into(),
                        max: MAX_NAME_BYTES,
                    });
                }
                name => components.push(name.to_owned()),
            }
        }
        if crate::layout::is_reserved(components.iter().map(String::as_str)) {
            return Err(ToolError::Reserved { path: path.into() });
        }
        Ok(Self { components })
    }

    /// Refuses a path for something new (a created file, a rename's
    /// destination, a new note) when a name in it holds a control character
    /// (a line break, tab, escape…) or an invisible one (bidirectional
    /// controls, zero-width characters): such names can forge lines in
    /// listings and the index, or disguise what a file is. Existing files
    /// with such names can still be viewed, renamed and deleted.
    pub fn check_new(&self, shown: &str) -> Result<()> {
        match self.components.iter().find_map(|c| unsafe_char(c)) {
            None => Ok(()),
            Some(found) => Err(ToolError::UnsafeName {
                path: shown.into(),
                found,
            }),
        }
    }

    /// True for the root itself, in any spelling.
    pub fn is_root(&self) -> bool {
        self.components.is_empty()
    }

    /// The path relative to the root descriptor ("." for the root).
    pub fn relative(&self) -> String {
        if self.is_root() {
            ".".to_owned()
        } else {
            self.components.join("/")
        }
    }

    /// The path relative to the root, "" for the root itself: the key the
    /// note catalog uses.
    pub fn key(&self) -> String {
        self.components.join("/")
    }

    /// The parent directory (the root's parent is the root).
    pub fn parent(&self) -> MemPath {
        let mut components = self.components.clone();
        components.pop();
        MemPath { components }
    }

    /// Each ancestor from the top down, excluding the root and `self`.
    pub fn ancestors(&self) -> impl Iterator<Item = MemPath> + '_ {
        (1..self.components.len()).map(|n| MemPath {
            components: self.components[..n].to_vec(),
        })
    }

    /// The canonical virtual spelling, `/memories/a/b`.
    pub fn display(&self) -> String {
        let mut out = String::from(ROOT);
        for c in &self.components {
            out.push('/');
            out.push_str(c);
        }
        out
    }

    /// The last component ("" for the root).
    pub fn file_name(&self) -> &str {
        self.components.last().map_or("", String::as_str)
    }

    /// True when `self` lies strictly below `other`.
    pub fn is_inside(&self, other: &MemPath) -> bool {
        self.components.len() > other.components.len()
            && self.components.starts_with(&other.components)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    fn rel(p: &str) -> String {
        MemPath::parse(p).unwrap().relative()
    }

    fn kind(p: &str) -> ErrorKind {
        MemPath::parse(p).unwrap_err().kind()
    }

    #[test]
    fn root_spellings() {
        for p in [
            "/memories",
            "/memories/",
            "/memories//",
            "/memories/.",
            "/memories/a/..",
        ] {
            assert!(MemPath::parse(p).unwrap().is_root(), "{p}");
        }
    }

    #[test]
    fn normalises_like_the_sdk() {
        assert_eq!(rel("/memories/a/../notes.txt"), "notes.txt");
        assert_eq!(rel("/memories//notes.txt"), "notes.txt");
        assert_eq!(rel("/memories/./notes.txt"), "notes.txt");
        assert_eq!(rel("/memories/dir/"), "dir");
        assert_eq!(rel("/memories/%2e%2e/x"), "%2e%2e/x");
    }

    #[test]
    fn refuses_what_the_sdk_lets_through() {
        assert_eq!(kind("/memoriesX.md"), ErrorKind::InvalidPath);
        assert_eq!(kind("/memories_backup/s.txt"), ErrorKind::InvalidPath);
        assert_eq!(kind("/memories/../memories/x"), ErrorKind::Escape);
        assert_eq!(kind("/memories/.memcap/lock"), ErrorKind::InvalidPath);
        assert_eq!(kind("/memories/a/../.memcap"), ErrorKind::InvalidPath);
        assert_eq!(kind("/memories/a\0b"), ErrorKind::InvalidPath);
    }

    #[test]
    fn new_names_may_not_hold_control_or_invisible_characters() {
        for bad in [
            "/memories/a\nb",
            "/memories/d\t/x",
            "/memories/x\u{202e}gpj.md",
            "/memories/\u{200b}",
        ] {
            let err = MemPath::parse(bad).unwrap().check_new(bad).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidPath, "{bad:?}");
            assert!(!err.to_string().contains('\n'), "{err}");
        }
        assert!(
            MemPath::parse("/memories/café 日本.md")
                .unwrap()
                .check_new("x")
                .is_ok()
        );
    }

    #[test]
    fn escapes() {
        for p in [
            "/memories/..",
            "/memories/../x",
            "/memories/a/../../x",
            "/memories/./../x",
        ] {
            assert_eq!(kind(p), ErrorKind::Escape, "{p}");
        }
    }

    #[test]
    fn prefix_errors_use_the_sdk_message() {
        let err = MemPath::parse("/etc/passwd").unwrap_err();
        assert_eq!(
            err.to_string(),
            "Path must start with /memories, got: /etc/passwd"
        );
        assert_eq!(kind(""), ErrorKind::InvalidPath);
        assert_eq!(kind("memories/x"), ErrorKind::InvalidPath);
    }
}
