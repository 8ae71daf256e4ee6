//! Output formatting shared by the commands: sizes and numbered lines byte
//! for byte the SDK's, and one-line text that no note can break out of.

/// Formats a size like the SDK's `_format_file_size`: `0B`, `1023B`, `1K`,
/// `1.5K`, capped at `G`, one decimal (round half to even) when not integral.
pub fn format_size(bytes: u64) -> String {
    if bytes == 0 {
        return "0B".to_owned();
    }
    let power = ((63 - bytes.leading_zeros()) / 10).min(3);
    let unit = ["B", "K", "M", "G"][power as usize];
    let value = bytes as f64 / 1024f64.powi(power as i32);
    if value.fract() == 0.0 {
        format!("{}{unit}", value as u64)
    } else {
        format!("{value:.1}{unit}")
    }
}

/// One numbered line: the number right-aligned in 6 columns, a TAB, the text.
pub fn push_numbered(out: &mut String, number: usize, line: &str) {
    use std::fmt::Write;
    let _ = write!(out, "{number:>6}\t{line}");
}

/// Numbers `lines`, the first being line `first`, joined by LF.
pub fn numbered<'a>(out: &mut String, first: usize, lines: impl IntoIterator<Item = &'a str>) {
    for (i, line) in lines.into_iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        push_numbered(out, first + i, line);
    }
}

/// Characters that change how text around them reads without showing
/// themselves: bidirectional controls and zero-width characters. With
/// control characters, they are what a file name may not hold and what
/// one-line text drops.
pub fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{061c}' | '\u{180e}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}'
        | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}' | '\u{feff}')
}

/// Whether a name holds a character it may not: a control character (line
/// breaks, tabs, escapes, NUL…) or an invisible one ([`is_invisible`]).
pub fn unsafe_char(name: &str) -> Option<char> {
    name.chars().find(|&c| c.is_control() || is_invisible(c))
}

/// `text` as one line of at most `max_chars` characters (then `…`): every run
/// of white space, control characters and line or paragraph separators
/// becomes one space, invisible characters are dropped, ends are trimmed.
pub fn one_line(text: &str, max_chars: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max_chars * 4 + 4));
    let mut chars = 0;
    let mut gap = false;
    for c in text.chars() {
        if is_invisible(c) {
            continue;
        }
        if c.is_whitespace() || c.is_control() {
            gap = !out.is_empty();
            continue;
        }
        if chars + usize::from(gap) >= max_chars {
            out.push('…');
            return out;
        }
        if gap {
            out.push(' ');
            chars += 1;
            gap = false;
        }
        out.push(c);
        chars += 1;
    }
    out
}

/// The most of a message about the input that is said back: past it, what
/// the input held is cut (a 15 MB value is not worth echoing).
pub const MAX_ECHO_BYTES: usize = 2_000;

/// `text` cut to at most [`MAX_ECHO_BYTES`] (at a character boundary),
/// saying so when it is.
pub fn cut_echo(text: String) -> String {
    cut(text, MAX_ECHO_BYTES)
}

/// `text` cut to at most `max` bytes (at a character boundary), saying so
/// when it is.
pub fn cut(mut text: String, max: usize) -> String {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let total = text.len();
    text.truncate(end);
    text.push_str(&format!("… (cut: {total} bytes in all)"));
    text
}

/// Seconds since the epoch as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn rfc3339(seconds: u64) -> String {
    let seconds = i64::try_from(seconds).unwrap_or(i64::MAX);
    match time::OffsetDateTime::from_unix_timestamp(seconds) {
        Ok(t) => format!(
            "{}T{:02}:{:02}:{:02}Z",
            t.date(),
            t.hour(),
            t.minute(),
            t.second()
        ),
        Err(_) => "unknown".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::{format_size, one_line, unsafe_char};

    #[test]
    fn one_line_cannot_break_out() {
        assert_eq!(
            one_line("  a\n## User\r\n- [x](y)  ", 100),
            "a ## User - [x](y)"
        );
        assert_eq!(one_line("a\u{2028}b\u{2029}c\u{85}d", 100), "a b c d");
        assert_eq!(
            one_line("\u{202e}evil\u{200b}\u{7}\u{1b}[31m", 100),
            "evil [31m"
        );
        assert_eq!(one_line("abcdef", 3), "abc…");
        assert_eq!(one_line("ab cdef", 3), "ab…");
        assert_eq!(one_line("ééé", 3), "ééé");
        assert_eq!(unsafe_char("a\nb"), Some('\n'));
        assert_eq!(unsafe_char("a\u{202e}b"), Some('\u{202e}'));
        assert_eq!(unsafe_char("café 日本.md"), None);
    }

    #[test]
    fn sizes_match_the_sdk_table() {
        let table = [
            (0, "0B"),
            (1, "1B"),
            (1023, "1023B"),
            (1024, "1K"),
            (1025, "1.0K"),
            (1126, "1.1K"),
            (1280, "1.2K"),
            (1331, "1.3K"),
            (1536, "1.5K"),
            (2048, "2K"),
            (3328, "3.2K"),
            (3840, "3.8K"),
            (4096, "4K"),
            (10240, "10K"),
            (1047552, "1023K"),
            (1048064, "1023.5K"),
            (1048575, "1024.0K"),
            (1048576, "1M"),
            (1572864, "1.5M"),
            (1073741823, "1024.0M"),
            (1073741824, "1G"),
            (1099511627776, "1024G"),
        ];
        for (bytes, shown) in table {
            assert_eq!(format_size(bytes), shown, "{bytes}");
        }
    }
}
