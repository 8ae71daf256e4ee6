//! BERT's tokenization as `tokenizer.json` describes it for model2vec's
//! WordPiece models: clean the text, space out CJK ideographs, lowercase
//! and strip accents, split on whitespace and punctuation, then the longest
//! vocabulary pieces (`##` inside a word); a word with no split is unknown.

use unicode_general_category::{GeneralCategory, get_general_category};
use unicode_normalization::UnicodeNormalization;

use crate::model::{LOWERCASE, MAX_WORD_CHARS, UNK};

/// Calls `emit` with the id of each token of `text`, in order.
pub fn wordpiece(vocab: &fst::Map<&[u8]>, text: &str, emit: &mut dyn FnMut(u32)) {
    let mut clean = String::with_capacity(text.len());
    normalize(text, &mut clean);
    let mut piece = String::new();
    let mut word_start = 0;
    for (at, c) in clean.char_indices() {
        let punctuation = is_punctuation(c);
        if c == ' ' || punctuation {
            pieces(vocab, &clean[word_start..at], &mut piece, emit);
            let next = at + c.len_utf8();
            if punctuation {
                pieces(vocab, &clean[at..next], &mut piece, emit);
            }
            word_start = next;
        }
    }
    pieces(vocab, &clean[word_start..], &mut piece, emit);
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

/// The longest-match-first WordPiece split of one word.
fn pieces(vocab: &fst::Map<&[u8]>, word: &str, piece: &mut String, emit: &mut dyn FnMut(u32)) {
    if word.is_empty() {
        return;
    }
    let unknown = |emit: &mut dyn FnMut(u32)| {
        if let Some(unk) = UNK {
            emit(unk);
        }
    };
    if word.chars().count() > MAX_WORD_CHARS {
        return unknown(emit);
    }
    let mut ids = Vec::new();
    let mut start = 0;
    while start < word.len() {
        let mut end = word.len();
        let found = loop {
            piece.clear();
            if start > 0 {
                piece.push_str("##");
            }
            piece.push_str(&word[start..end]);
            if let Some(id) = vocab.get(piece.as_bytes()) {
                break Some(id as u32);
            }
            match word[start..end].char_indices().last() {
                Some((last, _)) if last > 0 => end = start + last,
                _ => break None,
            }
        };
        match found {
            Some(id) => {
                ids.push(id);
                start = end;
            }
            None => return unknown(emit),
        }
    }
    ids.into_iter().for_each(emit);
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
