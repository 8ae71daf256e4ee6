//! `memcap mcp` on stdio never leaves a client waiting: a message over the
//! transport's limit (which the MCP library drops without a word) gets a
//! JSON-RPC error with its id, and the server goes on serving.

#[macro_use]
mod common;

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

both_backends! {
processes fn a_message_over_the_limit_gets_an_error_with_its_id_and_the_server_goes_on() {
    let f = common::Fixture::new();
    let mut server = Command::new(env!("CARGO_BIN_EXE_memcap"))
        .args(f.cli_args())
        .args(["mcp", "--no-watch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = server.stdin.take().unwrap();
    let lines = common::Lines::of(server.stdout.take().unwrap());
    let answer = |id: i64| -> Value {
        let line = lines.until(&format!("the answer to {id}"), |line| {
            serde_json::from_str::<Value>(line).unwrap()["id"] == json!(id)
        });
        serde_json::from_str(&line).unwrap()
    };
    let mut send = |text: &str| {
        stdin.write_all(text.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    };
    send(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}})
        .to_string(),
    );
    answer(1);
    send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string());
    let call = |id: i64, text: &str| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "memory", "arguments": {"command": "create",
            "path": format!("/memories/n{id}.md"), "file_text": text}}})
        .to_string()
    };
    // 17 MB, and 40 MB with its id written last: each gets an error naming
    // the limit, with its id.
    send(&call(2, &"a".repeat(17 << 20)));
    let mut last = call(3, &"b".repeat(40 << 20)).replacen("\"id\":3,", "", 1);
    last.pop();
    last.push_str(",\"id\":3}");
    send(&last);
    for id in [2, 3] {
        let reply = answer(id);
        assert_eq!(reply["error"]["code"], -32600, "{reply}");
        let message = reply["error"]["message"].as_str().unwrap();
        assert!(message.contains("takes up to 16777216 bytes"), "{message}");
    }
    // Nothing of them landed, and the next call is served.
    send(&call(4, "small"));
    let reply = answer(4);
    assert!(
        reply["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("File created successfully"),
        "{reply}"
    );
    assert!(!f.exists("n2.md") && !f.exists("n3.md") && f.exists("n4.md"));
    server.kill().unwrap();
    server.wait().unwrap();
}
}
