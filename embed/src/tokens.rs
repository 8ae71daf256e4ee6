//! BERT's tokenization as `tokenizer.json` describes it for model2vec's
//! WordPiece models: clean the text, space out CJK ideographs, lowercase
//! and strip accents, split on whitespace and punctuation, then the longest
//! vocabulary pieces (`##` inside a word); a word with no split is unknown.

use rustc_hash::FxBuildHasher;
use string_interner::StringInterner;
use string_interner::backend::StringBackend;
use string_interner::symbol::{Symbol, SymbolU32};
use unicode_general_category::{GeneralCategory, get_general_category};
use unicode_normalization::UnicodeNormalization;

use crate::model::{LOWERCASE, MAX_WORD_CHARS, UNK};

/// Words already split: text repeats its words, so most cost one lookup.
/// Each word's text is kept once in one buffer and its pieces in one list
/// (a string apiece costs a cache miss on every lookup).
pub struct Splits {
    words: StringInterner<StringBackend<SymbolU32>, FxBuildHasher>,
    /// By word symbol: where its pieces' ids start in `ids` (they end where
    /// the next word's start).
    starts: Vec<u32>,
    ids: Vec<u32>,
    /// The normalized text of the last call, its buffer kept for the next.
    clean: String,
    /// How many times it started over.
    generation: u32,
}

/// Names a word while [`Splits`] keeps it: the same word has the same key
/// until `generation` changes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct WordKey {
    pub generation: u32,
    pub word: u32,
}

impl Default for Splits {
    fn default() -> Self {
        Self {
            words: StringInterner::with_hasher(FxBuildHasher),
            starts: Vec::new(),
            ids: Vec::new(),
            clean: String::new(),
            generation: 0,
        }
    }
}

/// Words [`Splits`] keeps before it starts over (about 40 bytes each).
const MAX_SPLITS: usize = 100_000;

impl Splits {
    /// Calls `emit` with each word of `text` in order: its [`WordKey`] and
    /// its tokens' ids.
    pub fn wordpiece(
        &mut self,
        vocab: &fst::Map<&[u8]>,
        text: &str,
        emit: &mut dyn FnMut(WordKey, &[u32]),
    ) {
        let mut clean = std::mem::take(&mut self.clean);
        clean.clear();
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
        self.clean = clean;
    }

    fn word(&mut self, vocab: &fst::Map<&[u8]>, word: &str, emit: &mut dyn FnMut(WordKey, &[u32])) {
        if word.is_empty() {
            return;
        }
        if let Some(seen) = self.words.get(word) {
            let n = seen.to_usize();
            let end = self
                .starts
                .get(n + 1)
                .map_or(self.ids.len(), |&e| e as usize);
            let key = WordKey {
                generation: self.generation,
                word: n as u32,
            };
            return emit(key, &self.ids[self.starts[n] as usize..end]);
        }
        if self.words.len() == MAX_SPLITS {
            *self = Self {
                clean: std::mem::take(&mut self.clean),
                generation: self.generation.wrapping_add(1),
                ..Self::default()
            };
        }
        let start = self.ids.len();
        pieces(vocab.as_fst(), word, &mut self.ids);
        let key = WordKey {
            generation: self.generation,
            word: self.words.get_or_intern(word).to_usize() as u32,
        };
        emit(key, &self.ids[start..]);
        self.starts.push(start as u32);
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
/// pieces' ids, or the unknown token's when it has no split, appended to
/// `out`.
fn pieces(vocab: &fst::raw::Fst<&[u8]>, word: &str, out: &mut Vec<u32>) {
    let before = out.len();
    let unknown = |out: &mut Vec<u32>| {
        out.truncate(before);
        out.extend(UNK);
    };
    if word.chars().count() > MAX_WORD_CHARS {
        return unknown(out);
    }
    let mut start = 0;
    while start < word.len() {
        let prefix: &[u8] = if start > 0 { b"##" } else { b"" };
        match longest(vocab, prefix, &word.as_bytes()[start..]) {
            Some((id, len)) => {
                out.push(id);
                start += len;
            }
            None => return unknown(out),
        }
    }
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
