//! Line diffs for the page (two versions, or an edit against what an agent
//! wrote meanwhile), bounded three ways, since a diff runs on the server
//! after the component's call and its own deadline: each side's size, a
//! deadline on the comparison (similar's), and how many run at once (one
//! per signed-in holder, two in all), so no reader can buy the server's
//! cores with a pair of large versions.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The most bytes of either side compared.
pub const MAX_BYTES: usize = 1 << 20;
/// The most lines of either side compared.
pub const MAX_LINES: usize = 20_000;
/// How long one comparison may take before it gives up.
pub const DEADLINE: Duration = Duration::from_millis(300);
/// The most lines of a diff shown.
const MAX_SHOWN: usize = 2000;
/// Diffs running at once, in all.
const MAX_RUNNING: usize = 2;

/// One line of a diff, with its class (`add`, `del`, `hunk`, `same`).
pub struct DiffLine {
    pub class: &'static str,
    pub text: String,
}

/// A diff, or why there is none to show.
pub enum Diff {
    Lines(Vec<DiffLine>),
    /// Not compared (too large, too slow, or the server busy), in words.
    Skipped(String),
}

/// A unified diff of two contents, line by line, within the bounds.
pub fn lines(old: &[u8], new: &[u8]) -> Diff {
    let count = |b: &[u8]| b.iter().filter(|&&c| c == b'\n').count() + 1;
    if old.len().max(new.len()) > MAX_BYTES || count(old).max(count(new)) > MAX_LINES {
        return Diff::Skipped(format!(
            "These versions are too large to compare here (the page compares up to {} lines or {} KiB a side): open each version to read it whole.",
            MAX_LINES,
            MAX_BYTES >> 10
        ));
    }
    let (old, new) = (String::from_utf8_lossy(old), String::from_utf8_lossy(new));
    let started = Instant::now();
    let diff = similar::TextDiff::configure()
        .timeout(DEADLINE)
        .diff_lines(old.as_ref(), new.as_ref());
    if started.elapsed() >= DEADLINE {
        // similar gave up on a minimal diff: what it has would mislead.
        return Diff::Skipped(
            "These versions differ too much to compare in time: open each version to read it whole."
                .to_owned(),
        );
    }
    let text = diff.unified_diff().context_radius(3).to_string();
    Diff::Lines(
        text.lines()
            .take(MAX_SHOWN)
            .map(|line| DiffLine {
                class: match line.as_bytes().first() {
                    Some(b'+') => "add",
                    Some(b'-') => "del",
                    Some(b'@') => "hunk",
                    _ => "same",
                },
                text: line.to_owned(),
            })
            .collect(),
    )
}

/// Who is comparing now: one diff per holder (a token, the owner), two in
/// all.
#[derive(Default)]
pub struct Slots {
    running: Mutex<HashSet<String>>,
}

/// A slot taken until dropped.
pub struct Slot {
    slots: Arc<Slots>,
    holder: String,
}

impl Slots {
    /// A slot for `holder`, unless it compares already or the server is full.
    pub fn take(self: &Arc<Self>, holder: &str) -> Option<Slot> {
        let mut running = self.running.lock().unwrap_or_else(|p| p.into_inner());
        if running.len() >= MAX_RUNNING || !running.insert(holder.to_owned()) {
            return None;
        }
        Some(Slot {
            slots: Arc::clone(self),
            holder: holder.to_owned(),
        })
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.slots
            .running
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&self.holder);
    }
}

/// What a diff asked of a busy server says.
pub fn busy() -> Diff {
    Diff::Skipped(
        "The server is comparing other versions for you or others right now: reload in a moment."
            .to_owned(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn many(n: usize, tag: &str) -> Vec<u8> {
        (0..n)
            .map(|i| format!("line {i} {tag} {}\n", i * 7919 % 1000))
            .collect::<String>()
            .into_bytes()
    }

    #[test]
    fn a_small_diff_is_shown_and_a_pair_past_the_bounds_is_not_compared() {
        match lines(b"a\nb\n", b"a\nc\n") {
            Diff::Lines(l) => {
                assert!(l.iter().any(|l| l.class == "del" && l.text == "-b"));
                assert!(l.iter().any(|l| l.class == "add" && l.text == "+c"));
            }
            Diff::Skipped(why) => panic!("{why}"),
        }
        // 40,000 lines a side (the figure, under 1 s, is in bench_ui.py).
        let (old, new) = (many(40_000, "old"), many(40_000, "new"));
        assert!(matches!(lines(&old, &new), Diff::Skipped(why) if why.contains("too large")));
        let big = vec![b'x'; MAX_BYTES + 1];
        assert!(matches!(lines(&big, b"x"), Diff::Skipped(_)));
    }

    #[test]
    fn one_diff_a_holder_and_two_in_all() {
        let slots = Arc::new(Slots::default());
        let a = slots.take("a").unwrap();
        assert!(
            slots.take("a").is_none(),
            "a holder compares one pair at a time"
        );
        let _b = slots.take("b").unwrap();
        assert!(slots.take("c").is_none(), "two in all");
        drop(a);
        assert!(slots.take("c").is_some());
    }
}
