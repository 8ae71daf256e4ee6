//! The JSON-lines protocol of `memcap call` and of the command component:
//! one `tool_use` input object per line in, one `{"content": …, "is_error":
//! …}` line out per input, in order, each flushed as it is written. Blank
//! lines are skipped; a line over the size limit or not UTF-8 gets an error
//! result and the next line is read.

use std::io::{self, BufRead, Read, Write};

use serde::{Deserialize, Serialize};

use crate::error::ToolError;

/// How long one line of input may be unless the host says otherwise.
pub const DEFAULT_MAX_INPUT_BYTES: usize = 16 << 20;

/// One tool result: the text for the model and whether it is an error.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolResult {
    pub content: String,
    pub is_error: bool,
}

impl ToolResult {
    pub fn error(content: String) -> Self {
        Self {
            content,
            is_error: true,
        }
    }

    /// The result's line of the protocol (without the LF).
    pub fn to_json_line(&self) -> String {
        serde_json::to_string(self).expect("a ToolResult always serialises")
    }
}

impl From<Result<String, ToolError>> for ToolResult {
    fn from(result: Result<String, ToolError>) -> Self {
        match result {
            Ok(content) => Self {
                content,
                is_error: false,
            },
            Err(e) => Self::error(e.to_string()),
        }
    }
}

/// Answers every line of `input` with `call`'s result on `output`, until the
/// input ends. `call` gets the line, or why it cannot be a tool input (over
/// `max` bytes, not UTF-8), to answer in its own format. Lines longer than
/// `max` bytes are never held whole in memory. Fails only when reading or
/// writing does (a closed pipe, say).
pub fn serve(
    mut input: impl BufRead,
    mut output: impl Write,
    max: usize,
    mut call: impl FnMut(Result<&str, ToolError>) -> ToolResult,
) -> io::Result<()> {
    let mut line = Vec::new();
    while let Some(fits) = read_line(&mut input, max, &mut line)? {
        let result = match std::str::from_utf8(&line) {
            _ if !fits => call(Err(ToolError::InputTooLarge { max })),
            Ok(text) if text.trim().is_empty() => continue,
            Ok(text) => call(Ok(text)),
            Err(_) => call(Err(ToolError::InvalidInput {
                problem: "Invalid tool input: the line is not UTF-8 text.".into(),
            })),
        };
        writeln!(output, "{}", result.to_json_line())?;
        output.flush()?;
    }
    Ok(())
}

/// Reads one line (without its LF) into `line`, keeping at most `max` bytes
/// so an endless line cannot exhaust memory. Returns `None` at end of input,
/// `Some(false)` when the line was longer than `max` (the rest is skipped).
fn read_line(input: &mut impl BufRead, max: usize, line: &mut Vec<u8>) -> io::Result<Option<bool>> {
    line.clear();
    let read = input
        .by_ref()
        .take(max as u64 + 1)
        .read_until(b'\n', line)?;
    if read == 0 {
        return Ok(None);
    }
    if line.last() == Some(&b'\n') {
        line.pop();
        return Ok(Some(true));
    }
    if line.len() <= max {
        return Ok(Some(true)); // the last line, without a final LF
    }
    // Too long: drop what was kept and skip to the end of the line.
    line.clear();
    loop {
        let buf = input.fill_buf()?;
        if buf.is_empty() {
            return Ok(Some(false));
        }
        match buf.iter().position(|&b| b == b'\n') {
            Some(i) => {
                input.consume(i + 1);
                return Ok(Some(false));
            }
            None => {
                let n = buf.len();
                input.consume(n);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The output lines for `input`, with `call` echoing each line it gets.
    fn served(input: &[u8], max: usize) -> Vec<ToolResult> {
        let mut out = Vec::new();
        serve(input, &mut out, max, |line| line.map(str::to_owned).into()).unwrap();
        String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    #[test]
    fn every_line_gets_one_answer_in_order() {
        let got = served(b"{\"a\":1}\n\n   \n{\"b\":2}\n{\"c\":3}", 100);
        let contents: Vec<&str> = got.iter().map(|r| r.content.as_str()).collect();
        // Blank lines are skipped; the last line needs no LF.
        assert_eq!(contents, ["{\"a\":1}", "{\"b\":2}", "{\"c\":3}"]);
        assert!(got.iter().all(|r| !r.is_error));
    }

    #[test]
    fn a_line_over_the_limit_or_not_utf8_is_an_error_and_the_next_line_is_read() {
        let mut input = b"x".repeat(10);
        input.extend_from_slice(b"\n\xff\xfe\nok\n");
        input.extend_from_slice(&b"y".repeat(1_000));
        let got = served(&input, 9);
        assert_eq!(got.len(), 4);
        assert!(got[0].is_error);
        assert!(
            got[0].content.contains("over 9 bytes"),
            "{}",
            got[0].content
        );
        assert!(got[1].is_error);
        assert!(got[1].content.contains("not UTF-8"), "{}", got[1].content);
        assert_eq!(got[2].content, "ok");
        assert!(got[3].is_error, "the long last line without a LF");
        // Exactly at the limit fits.
        assert_eq!(served(b"123456789\n", 9)[0].content, "123456789");
    }

    #[test]
    fn the_json_line_matches_the_protocol() {
        let line = ToolResult::error("a \"quoted\"\nline".into()).to_json_line();
        assert_eq!(line, r#"{"content":"a \"quoted\"\nline","is_error":true}"#);
    }
}
