//! Text to search terms: Unicode words (UAX #29), case folded, accents
//! removed, English stop words dropped and the rest stemmed (Snowball);
//! runs of CJK characters, which have no spaces between words, become
//! overlapping character pairs.

use std::cell::RefCell;

use rust_stemmers::{Algorithm, Stemmer};
use rustc_hash::FxBuildHasher;
use string_interner::StringInterner;
use string_interner::backend::StringBackend;
use string_interner::symbol::{Symbol, SymbolU32};
use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;
use unicode_segmentation::UnicodeSegmentation;

/// Words that carry no topic in a note or a question. Dropped on both
/// sides, so a query made only of them finds nothing (and says so).
/// Sorted: looked up by binary search.
const STOP_WORDS: &[&str] = &[
    "a", "about", "an", "and", "any", "are", "as", "at", "be", "but", "by", "could", "did", "do",
    "does", "for", "from", "has", "have", "he", "her", "him", "his", "how", "i", "in", "is", "it",
    "its", "kind", "likely", "me", "my", "of", "on", "or", "our", "s", "she", "should", "some",
    "t", "that", "the", "their", "them", "they", "this", "to", "type", "us", "was", "we", "were",
    "what", "when", "where", "which", "who", "whom", "why", "will", "with", "would", "you", "your",
];

/// Longer words (a base64 blob, a line of one repeated letter) are no
/// search terms: nobody types them, and each would cost its length in the
/// index.
const MAX_WORD_BYTES: usize = 64;

/// Words whose stems [`Analyzer`] keeps before it starts over (about 40
/// bytes each).
const MAX_STEMS: usize = 100_000;

/// Turns text into terms, reusing one stemmer and the stems of words it
/// has seen (text repeats its words: a rebuild stems each one once).
pub struct Analyzer {
    stemmer: Stemmer,
    stems: RefCell<Stems>,
}

/// Names a stemmed term while the analyzer's cache holds it: the same
/// term has the same key until `generation` changes (the cache started
/// over), so an index can keep its own ids by key instead of looking each
/// term's text up again.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct TermKey {
    pub generation: u32,
    pub symbol: u32,
}

/// Folded words and their terms, each text kept once in one buffer (a
/// string apiece costs a cache miss on every lookup).
struct Stems {
    /// How many times the cache started over.
    generation: u32,
    words: Interner,
    /// By word symbol: its term's symbol in `terms` (`None`: a stop word).
    term_of: Vec<Option<SymbolU32>>,
    terms: Interner,
    /// [`Analyzer::each_term`]'s buffers: a CJK run and a folded word.
    buffers: (String, String),
}

type Interner = StringInterner<StringBackend<SymbolU32>, FxBuildHasher>;

impl Default for Stems {
    fn default() -> Self {
        Self {
            generation: 0,
            words: Interner::with_hasher(FxBuildHasher),
            term_of: Vec::new(),
            terms: Interner::with_hasher(FxBuildHasher),
            buffers: Default::default(),
        }
    }
}

impl Default for Analyzer {
    fn default() -> Self {
        Self {
            stemmer: Stemmer::create(Algorithm::English),
            stems: RefCell::default(),
        }
    }
}

impl Analyzer {
    /// Appends the terms of `text` to `out`, in order, repeats kept.
    pub fn terms(&self, text: &str, out: &mut Vec<String>) {
        self.each_term(text, &mut |term, _| out.push(term.to_owned()));
    }

    /// Calls `emit` with each term of `text`, in order, repeats kept, and
    /// its [`TermKey`] when it has one: what [`Analyzer::terms`] collects,
    /// with no string made per term.
    pub fn each_term(&self, text: &str, emit: &mut dyn FnMut(&str, Option<TermKey>)) {
        // UAX #29 makes each CJK character a word: adjacent ones are joined
        // back into the run they were written as.
        let mut stems = self.stems.borrow_mut();
        // The buffers of the last call, reused (a note is analyzed a line at
        // a time).
        let (mut run, mut folded) = std::mem::take(&mut stems.buffers);
        run.clear();
        let mut run_end = 0;
        for (at, word) in text.unicode_word_indices() {
            if word.len() > MAX_WORD_BYTES {
                continue;
            }
            folded.clear();
            if word.is_ascii() {
                // The same as below, without the per-character tables.
                folded.push_str(word);
                folded.make_ascii_lowercase();
            } else {
                folded.extend(
                    word.nfkd()
                        .filter(|c| !is_combining_mark(*c))
                        // Recomposed: NFKD splits Hangul syllables into jamo.
                        .nfc()
                        .flat_map(char::to_lowercase),
                );
                if folded.chars().any(is_cjk) {
                    if at != run_end {
                        cjk_pairs(&run, emit);
                        run.clear();
                    }
                    run.push_str(&folded);
                    run_end = at + word.len();
                    continue;
                }
            }
            cjk_pairs(&run, emit);
            run.clear();
            if let Some(term) = self.stem(&mut stems, &folded) {
                let key = TermKey {
                    generation: stems.generation,
                    symbol: term.to_usize() as u32,
                };
                emit(stems.terms.resolve(term).expect("interned"), Some(key));
            }
        }
        cjk_pairs(&run, emit);
        stems.buffers = (run, folded);
    }

    /// The term of a folded word (`None` for a stop word), from the cache
    /// when it has been seen.
    fn stem(&self, stems: &mut Stems, word: &str) -> Option<SymbolU32> {
        if let Some(seen) = stems.words.get(word) {
            return stems.term_of[seen.to_usize()];
        }
        if stems.words.len() == MAX_STEMS {
            *stems = Stems {
                generation: stems.generation.wrapping_add(1),
                ..Stems::default()
            };
        }
        let term = (STOP_WORDS.binary_search(&word).is_err())
            .then(|| stems.terms.get_or_intern(self.stemmer.stem(word)));
        stems.words.get_or_intern(word);
        stems.term_of.push(term);
        term
    }

    /// The distinct terms of a query, in order.
    pub fn query(&self, text: &str) -> Vec<String> {
        let mut all = Vec::new();
        self.terms(text, &mut all);
        let mut seen = std::collections::HashSet::new();
        all.retain(|t| seen.insert(t.clone()));
        all
    }
}

/// Han, kana and Hangul: scripts written without spaces between words.
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // hiragana, katakana
        | 0x3400..=0x4DBF    // CJK extension A
        | 0x4E00..=0x9FFF    // CJK unified ideographs
        | 0xAC00..=0xD7AF    // Hangul syllables
        | 0xF900..=0xFAFF    // CJK compatibility ideographs
        | 0x20000..=0x2FFFF) // CJK extensions B and later
}

/// A word holding CJK characters: each CJK run as overlapping pairs (a lone
/// character as itself), any other run as one term.
fn cjk_pairs(word: &str, emit: &mut dyn FnMut(&str, Option<TermKey>)) {
    if word.is_empty() {
        return;
    }
    let chars: Vec<char> = word.chars().collect();
    let mut start = 0;
    while start < chars.len() {
        let cjk = is_cjk(chars[start]);
        let end = (start..chars.len())
            .find(|&i| is_cjk(chars[i]) != cjk)
            .unwrap_or(chars.len());
        let run = &chars[start..end];
        if !cjk || run.len() == 1 {
            emit(&run.iter().collect::<String>(), None);
        } else {
            for pair in run.windows(2) {
                emit(&pair.iter().collect::<String>(), None);
            }
        }
        start = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_words_are_sorted_for_their_binary_search() {
        assert!(STOP_WORDS.is_sorted());
    }

    fn terms(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        Analyzer::default().terms(text, &mut out);
        out
    }

    #[test]
    fn overlong_words_are_no_terms() {
        let a = Analyzer::default();
        let mut out = Vec::new();
        a.terms(&format!("keep {} this", "x".repeat(65)), &mut out);
        assert_eq!(out, ["keep"]);
    }

    #[test]
    fn words_are_folded_stemmed_and_stop_words_dropped() {
        assert_eq!(terms("The Painters were PAINTING"), ["painter", "paint"]);
        assert_eq!(terms("Café résumé naïve"), ["cafe", "resum", "naiv"]);
        assert_eq!(
            terms("Caroline's LGBTQ group, 2023-05-07"),
            ["carolin", "lgbtq", "group", "2023", "05", "07"]
        );
    }

    #[test]
    fn cjk_runs_become_pairs() {
        assert_eq!(
            terms("東京都に住む"),
            ["東京", "京都", "都に", "に住", "住む"]
        );
        assert_eq!(terms("猫"), ["猫"]);
        assert_eq!(terms("한국어 검색"), ["한국", "국어", "검색"]);
    }

    #[test]
    fn a_query_keeps_each_term_once() {
        assert_eq!(
            Analyzer::default().query("paint painting PAINTED"),
            ["paint"]
        );
    }
}
