//! A write's precondition, in the shape Anthropic's memory stores take:
//! `{"type": "content_sha256", "content_sha256": HEX}`. The write happens
//! only while the file's content still has that SHA-256, so an edit based
//! on what someone read never silently overwrites a change made since.

use sha2::{Digest, Sha256};

/// The content a write expects to find: its SHA-256.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Precondition {
    pub content_sha256: [u8; 32],
}

impl Precondition {
    /// Whether `content` is what the write expects.
    pub fn holds(&self, content: &[u8]) -> bool {
        sha256(content) == self.content_sha256
    }

    /// The expected hash, as lowercase hex.
    pub fn expected(&self) -> String {
        hex(&self.content_sha256)
    }
}

/// The SHA-256 of `bytes`.
pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// The SHA-256 of `bytes` as 64 lowercase hex digits, as answers carry it.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&sha256(bytes))
}

/// `bytes` as lowercase hex, two digits a byte: from a table rather than a
/// `format!` a byte, since every change writes a hash or two.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0x0f)]));
    }
    out
}

/// 64 hex digits (either case) as a digest; `None` for anything else.
pub fn parse_hex(text: &str) -> Option<[u8; 32]> {
    // Checked first: `from_str_radix` alone would take a leading `+`.
    if text.len() != 64 || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_and_parses_hex() {
        let empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
        assert_eq!(sha256_hex(b""), empty);
        let pre = Precondition {
            content_sha256: parse_hex(&empty.to_uppercase()).unwrap(),
        };
        assert!(pre.holds(b"") && !pre.holds(b"x"));
        assert_eq!(pre.expected(), empty);
        assert_eq!(parse_hex(&empty[1..]), None);
        assert_eq!(parse_hex(&format!("{}g", &empty[1..])), None);
        assert_eq!(parse_hex(&format!("+{}", &empty[1..])), None);
        assert_eq!(parse_hex(&"é".repeat(32)), None);
        assert_eq!(hex(&[0x00, 0x0f, 0xa5, 0xf0, 0xff]), "000fa5f0ff");
        let every: Vec<u8> = (0..=255).collect();
        let parts: Vec<String> = every.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex(&every), parts.concat());
    }
}
