//! The command build: one `tool_use` input JSON per line on stdin, one
//! `{"content": …, "is_error": …}` line per input on stdout, in order.
//! Run it with `wasmtime run --dir ./memories::/memories memcap-command.wasm`.

use std::io::{BufRead, Write};

fn main() {
    let stdin = std::io::stdin().lock();
    let mut stdout = std::io::stdout().lock();
    for line in stdin.split(b'\n') {
        let Ok(line) = line else { break };
        let result = match String::from_utf8(line) {
            Ok(text) if text.trim().is_empty() => continue,
            Ok(text) => memcap::call(&text),
            Err(_) => memcap::ToolResult {
                content: "Invalid tool input: the line is not UTF-8 text.".to_owned(),
                is_error: true,
            },
        };
        // Flushed per line so agent loops can read each answer as it comes.
        if writeln!(stdout, "{}", result.to_json_line())
            .and_then(|()| stdout.flush())
            .is_err()
        {
            break;
        }
    }
}
