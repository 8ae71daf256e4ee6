//! Names a host gives parts of its storage: a namespace (one user's or
//! project's store under a base directory) and a shared directory's name
//! under `/memories/shared/`. Both become one path component, so they are
//! held to a plain spelling: nothing that could name a parent, another
//! directory or a lookalike of one.

use crate::error::OpenError;

/// The longest name taken.
pub const MAX_NAME_BYTES: usize = 64;

/// Checks `name` as one path component: 1 to 64 ASCII letters, digits,
/// `-`, `_` or `.`, not starting with `.` (so not `.`, `..` or a hidden
/// name). Anything else (separators, `%2e%2e`, Unicode lookalikes of `.` or
/// `/`, spaces) is refused rather than cleaned, so two spellings never name
/// the same directory.
pub fn check(what: &'static str, name: &str) -> Result<(), OpenError> {
    let bad = |why| {
        Err(OpenError::BadName {
            what,
            name: name.to_owned(),
            why,
        })
    };
    if name.is_empty() {
        return bad("is empty");
    }
    if name.len() > MAX_NAME_BYTES {
        return bad("is longer than 64 bytes");
    }
    if name.starts_with('.') {
        return bad("starts with a dot; use letters, digits, '-', '_' and inner dots");
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
    {
        return bad("may hold only ASCII letters, digits, '-', '_' and '.'");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn plain_names_pass_and_anything_that_could_leave_fails() {
        for ok in ["alice", "team-1", "a.b", "A_9", &"x".repeat(64)] {
            assert!(check("namespace", ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            ".",
            "..",
            "../bob",
            "a/b",
            "a\\b",
            "%2e%2e",
            ".hidden",
            "bob\u{2215}x",
            "\u{ff0e}\u{ff0e}",
            "al ice",
            "a\0b",
            &"x".repeat(65),
        ] {
            assert!(check("namespace", bad).is_err(), "{bad:?}");
        }
    }
}
