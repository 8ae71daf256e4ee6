//! Lines of the stdio transport read within a bound: rmcp drops a line
//! over its limit without a word (the client then waits forever), and
//! reading a line whole would hold any size in memory. A line over the
//! bound keeps only its head and tail, enough to find the request's id.

use tokio::io::{AsyncBufRead, AsyncBufReadExt};

/// What of a long line is kept at each end.
const KEPT: usize = 64 * 1024;

/// One line of input.
pub enum Line {
    /// The line, without its `\n` (or `\r\n`).
    Whole(Vec<u8>),
    /// A line longer than the bound: its length, and its first and last
    /// bytes.
    TooLong {
        len: usize,
        head: Vec<u8>,
        tail: Vec<u8>,
    },
}

/// The next line of `reader`, up to `max` bytes whole; `None` at the end.
pub async fn next_line<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    max: usize,
) -> std::io::Result<Option<Line>> {
    let mut line = Vec::new();
    // (length, head, tail) once the line is over `max`.
    let mut long: Option<(usize, Vec<u8>, Vec<u8>)> = None;
    let mut seen_any = false;
    loop {
        let buf = reader.fill_buf().await?;
        if buf.is_empty() {
            if !seen_any {
                return Ok(None);
            }
            break;
        }
        seen_any = true;
        let newline = buf.iter().position(|&b| b == b'\n');
        let chunk = &buf[..newline.unwrap_or(buf.len())];
        match &mut long {
            None if line.len() + chunk.len() <= max => line.extend_from_slice(chunk),
            None => {
                let mut tail = std::mem::take(&mut line);
                tail.extend_from_slice(chunk);
                let head = tail[..KEPT.min(tail.len())].to_vec();
                let len = tail.len();
                keep_last(&mut tail);
                long = Some((len, head, tail));
            }
            Some((len, _, tail)) => {
                *len += chunk.len();
                tail.extend_from_slice(chunk);
                keep_last(tail);
            }
        }
        let used = newline.map_or(buf.len(), |at| at + 1);
        reader.consume(used);
        if newline.is_some() {
            break;
        }
    }
    Ok(Some(match long {
        None => {
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            Line::Whole(line)
        }
        Some((len, head, tail)) => Line::TooLong { len, head, tail },
    }))
}

/// Trims `tail` to its last [`KEPT`] bytes once it holds twice that.
fn keep_last(tail: &mut Vec<u8>) {
    if tail.len() > 2 * KEPT {
        tail.drain(..tail.len() - KEPT);
    }
}

/// The id of the JSON-RPC request a long line holds, when its head or its
/// tail shows it: the `id` member of the top-level object, written before
/// anything long (`{"jsonrpc": "2.0", "id": 7, …`) or as its last member.
pub fn request_id(head: &[u8], tail: &[u8]) -> Option<serde_json::Value> {
    id_in_head(head).or_else(|| id_in_tail(tail))
}

/// Walks the top-level object's members from the start, skipping nested
/// values, until `"id"` (or the head ends).
fn id_in_head(head: &[u8]) -> Option<serde_json::Value> {
    let text = String::from_utf8_lossy(head);
    let text = text.trim_start();
    let mut rest = text.strip_prefix('{')?;
    loop {
        rest = rest.trim_start();
        let (key, after) = json_string(rest)?;
        rest = after.trim_start().strip_prefix(':')?;
        let end = value_end(rest)?;
        if key == "id" {
            return id_value(&rest[..end]);
        }
        rest = rest[end..].trim_start().strip_prefix(',')?;
    }
}

/// `"id": VALUE }` at the very end of the line.
fn id_in_tail(tail: &[u8]) -> Option<serde_json::Value> {
    let text = String::from_utf8_lossy(tail);
    let body = text.trim_end().strip_suffix('}')?;
    let at = body.rfind("\"id\"")?;
    let before = body[..at].trim_end();
    if !(before.ends_with(',') || before.ends_with('{')) {
        return None;
    }
    id_value(body[at + 4..].trim_start().strip_prefix(':')?)
}

/// A JSON-RPC id: a number or a string.
fn id_value(text: &str) -> Option<serde_json::Value> {
    let value: serde_json::Value = serde_json::from_str(text.trim()).ok()?;
    (value.is_number() || value.is_string()).then_some(value)
}

/// The JSON string at the start of `text` (unescaped) and what follows it.
fn json_string(text: &str) -> Option<(String, &str)> {
    let end = string_end(text)?;
    let value = serde_json::from_str(&text[..end]).ok()?;
    Some((value, &text[end..]))
}

/// Where the JSON string starting `text` ends (after its closing quote).
fn string_end(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    if bytes.first() != Some(&b'"') {
        return None;
    }
    let mut i = 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// Where the JSON value starting `text` ends: at the `,` or `}` that
/// follows it at its own level.
fn value_end(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => i += string_end(&text[i..])? - 1,
            b'{' | b'[' => depth += 1,
            b'}' | b']' if depth > 0 => depth -= 1,
            b',' | b'}' if depth == 0 => return Some(i),
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_id_is_found_at_either_end_and_never_in_the_params() {
        let big = "x".repeat(100);
        let first = format!(r#"{{"jsonrpc": "2.0", "id": 7, "method": "m", "params": "{big}"#);
        assert_eq!(request_id(first.as_bytes(), b""), Some(json!(7)));
        let nested = format!(r#"{{"jsonrpc":"2.0","params":{{"id":1,"a":"{big}"#);
        assert_eq!(request_id(nested.as_bytes(), b"\"}}"), None);
        assert_eq!(
            request_id(nested.as_bytes(), br#"x"}, "id": "abc"}"#),
            Some(json!("abc"))
        );
        assert_eq!(request_id(b"", br#"x","id":3}}"#), None);
        assert_eq!(
            request_id(br#"{"method":"a\"b","id":5,"#, b""),
            Some(json!(5))
        );
    }

    #[tokio::test]
    async fn a_line_over_the_bound_keeps_its_ends_and_the_next_line_is_whole() {
        let mut input = b"{\"id\": 1, \"x\": \"".to_vec();
        input.extend(std::iter::repeat_n(b'a', 300_000));
        input.extend(b"\"}\nnext\r\n");
        let mut reader = tokio::io::BufReader::with_capacity(1000, &input[..]);
        match next_line(&mut reader, 1000).await.unwrap() {
            Some(Line::TooLong { len, head, tail }) => {
                assert_eq!(len, input.len() - "\nnext\r\n".len());
                assert_eq!(request_id(&head, &tail), Some(json!(1)));
                assert!(tail.len() <= 2 * KEPT && tail.ends_with(b"\"}"));
            }
            _ => panic!("not cut"),
        }
        match next_line(&mut reader, 1000).await.unwrap() {
            Some(Line::Whole(line)) => assert_eq!(line, b"next"),
            _ => panic!("not whole"),
        }
        assert!(next_line(&mut reader, 1000).await.unwrap().is_none());
    }
}
