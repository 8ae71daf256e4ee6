//! BERT's tokenization as `tokenizer.json` describes it for model2vec's
//! WordPiece models: clean the text, space out CJK ideographs, lowercase
//! and strip accents, split on whitespace and punctuation, then the longest
//! vocabulary pieces (`##` inside a word); a word with no split is unknown.

use std::collections::HashMap;

use unicode_general_category::{GeneralCategory, get_general_category};
use unicode_normalization::UnicodeNormalization;

use crate::model::{LOWERCASE, MAX_WORD_CHARS, UNK};

/// Words already split: text repeats its words, so most cost one lookup.
#[derive(Default)]
pub struct Splits {
    words: HashMap<Box<str>, Box<[u32]>>,
}

/// Words [`Splits`] keeps before it starts over (a few MB at most).
const MAX_SPLITS: usize = 20_000;

impl Splits {
    /// Calls `emit` with the id of each token of `text`, in order.
    pub fn wordpiece(&mut self, vocab: &fst::Map<&[u8]>, text: &str, emit: &mut dyn FnMut(u32)) {
        let mut clean = String::with_capacity(text.len());
        normalize(text, &mut clean);
        let mut word_start = 0;
        for (at, c) in clean.char_indices() {
            let punctuation = is_punctuation(c);
            if c == ' ' || punctuation {
                self.word(vocab, &clean[word_start..at], emit);
                let next = at + c.len_utf8();
                if punctuation {
                    self.word(vocab, &clean[at..next], emit);
                }
                word_start = next;
            }
        }
        self.word(vocab, &clean[word_start..], emit);
    }

    fn word(&mut self, vocab: &fst::Map<&[u8]>, word: &str, emit: &mut dyn FnMut(u32)) {
        if word.is_empty() {
            return;
        }
        if let Some(ids) = self.words.get(word) {
            return ids.iter().copied().for_each(emit);
        }
        let ids = pieces(vocab.as_fst(), word);
        ids.iter().copied().for_each(emit);
        if self.words.len() == MAX_SPLITS {
            self.words.clear();
        }
        self.words.insert(word.into(), ids.into());
    }
}

/// The BertNormalizer's text, into `out`: control characters dropped,
/// whitespace made a space, CJK ideographs spaced out, lowercased with
/// accents stripped. ASCII, most of any text, takes the short way.
fn normalize(text: &str, out: &mut String) {
    for c in text.chars() {
        if c.is_ascii() {
            match c {
                '\t' | '\n' | '\r' | ' ' => out.push(' '),
                c if c.is_ascii_control() => {}
                c if LOWERCASE => out.push(c.to_ascii_lowercase()),
                c => out.push(c),
            }
            continue;
        }
        match c {
            '\u{fffd}' => {}
            c if c.is_whitespace() => out.push(' '),
            c if is_control(c) => {}
            c if is_cjk(c) => {
                out.push(' ');
                fold(c, out);
                out.push(' ');
            }
            c => fold(c, out),
        }
    }
}

/// One character lowercased with its accents stripped (its canonical
/// decomposition without nonspacing marks), when the model wants that.
fn fold(c: char, out: &mut String) {
    if !LOWERCASE {
        out.push(c);
        return;
    }
    for d in std::iter::once(c).nfd() {
        if get_general_category(d) != GeneralCategory::NonspacingMark {
            out.extend(d.to_lowercase());
        }
    }
}

/// The longest-match-first WordPiece split of one word (not empty): its
/// pieces' ids, or the unknown token's when it has no split.
fn pieces(vocab: &fst::raw::Fst<&[u8]>, word: &str) -> Vec<u32> {
    let unknown = || UNK.into_iter().collect();
    if word.chars().count() > MAX_WORD_CHARS {
        return unknown();
    }
    let mut ids = Vec::new();
    let mut start = 0;
    while start < word.len() {
        let prefix: &[u8] = if start > 0 { b"##" } else { b"" };
        match longest(vocab, prefix, &word.as_bytes()[start..]) {
            Some((id, len)) => {
                ids.push(id);
                start += len;
            }
            None => return unknown(),
        }
    }
    ids
}

/// The id and length of the longest vocabulary entry `prefix` + a start of
/// `rest`, in one walk down the FST (a lookup per candidate length would
/// cost the word's length squared). Entries are UTF-8, so every match ends
/// on a character boundary.
fn longest(vocab: &fst::raw::Fst<&[u8]>, prefix: &[u8], rest: &[u8]) -> Option<(u32, usize)> {
    let mut node = vocab.root();
    let mut out = fst::raw::Output::zero();
    for &b in prefix {
        let t = node.transition(node.find_input(b)?);
        out = out.cat(t.out);
        node = vocab.node(t.addr);
    }
    let mut best = None;
    for (at, &b) in rest.iter().enumerate() {
        let Some(i) = node.find_input(b) else { break };
        let t = node.transition(i);
        out = out.cat(t.out);
        node = vocab.node(t.addr);
        if node.is_final() {
            best = Some((out.cat(node.final_output()).value() as u32, at + 1));
        }
    }
    best
}

/// BERT's punctuation: ASCII symbols and every Unicode punctuation class.
fn is_punctuation(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_punctuation();
    }
    matches!(
        get_general_category(c),
        GeneralCategory::ConnectorPunctuation
            | GeneralCategory::DashPunctuation
            | GeneralCategory::OpenPunctuation
            | GeneralCategory::ClosePunctuation
            | GeneralCategory::InitialPunctuation
            | GeneralCategory::FinalPunctuation
            | GeneralCategory::OtherPunctuation
    )
}

/// Unicode's "other" classes (controls, formats, unassigned…).
fn is_control(c: char) -> bool {
    matches!(
        get_general_category(c),
        GeneralCategory::Control
            | GeneralCategory::Format
            | GeneralCategory::Unassigned
            | GeneralCategory::PrivateUse
            | GeneralCategory::Surrogate
    )
}

/// The CJK ideograph blocks BERT splits into single characters.
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x4E00..=0x9FFF
        | 0x3400..=0x4DBF
        | 0x20000..=0x2A6DF
        | 0x2A700..=0x2B73F
        | 0x2B740..=0x2B81F
        | 0x2B920..=0x2CEAF
        | 0xF900..=0xFAFF
        | 0x2F800..=0x2FA1F)
}
