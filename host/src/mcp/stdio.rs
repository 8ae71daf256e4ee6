//! The stdio transport with JSON-RPC's own answers to bad input: rmcp drops
//! a line it cannot parse, or one over its length limit, without a word, so
//! each line is checked here first. Not JSON gets a parse error (-32700),
//! JSON that is not a JSON-RPC 2.0 message or a line over the limit an
//! invalid-request error (-32600), each with the id when there is one;
//! everything else goes through to the server unchanged.

use rmcp::ServiceExt;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use super::MemoryServer;
use super::lines::{Line, next_line, request_id};

/// The longest message taken: rmcp's own limit, past which it drops a line.
const MAX_LINE: usize = rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH;

/// Serves `server` on stdin and stdout until stdin closes.
pub async fn serve(server: MemoryServer) -> std::io::Result<()> {
    let (mut to_server, server_in) = tokio::io::duplex(1 << 20);
    let (server_out, from_server) = tokio::io::duplex(1 << 20);
    // `serve` waits for the client's initialize, which comes through the
    // pump below: run it beside the pump.
    let session = tokio::spawn(async move {
        if let Ok(running) = server.serve((server_in, server_out)).await {
            let _ = running.waiting().await;
        }
    });
    let (replies, mut replies_rx) = mpsc::unbounded_channel::<String>();

    // One writer owns stdout, so the server's lines and the error replies
    // never interleave.
    let writer = tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        let mut from_server = BufReader::new(from_server).lines();
        loop {
            let line = tokio::select! {
                line = from_server.next_line() => match line {
                    Ok(Some(line)) => line,
                    _ => break,
                },
                Some(reply) = replies_rx.recv() => reply,
            };
            if stdout
                .write_all(format!("{line}\n").as_bytes())
                .await
                .is_err()
                || stdout.flush().await.is_err()
            {
                break;
            }
        }
    });

    let mut stdin = BufReader::new(tokio::io::stdin());
    while let Some(line) = next_line(&mut stdin, MAX_LINE).await? {
        let line = match line {
            Line::Whole(line) => line,
            Line::TooLong { len, head, tail } => {
                let reply = error(
                    request_id(&head, &tail).unwrap_or(Value::Null),
                    -32600,
                    format!(
                        "Invalid Request: the message is {len} bytes; memcap's MCP server takes \
                         up to {MAX_LINE} bytes per message. Split the content into several \
                         smaller files."
                    ),
                );
                let _ = replies.send(reply.to_string());
                continue;
            }
        };
        let Ok(line) = String::from_utf8(line) else {
            let reply = error(
                Value::Null,
                -32700,
                "Parse error: the line is not UTF-8".into(),
            );
            let _ = replies.send(reply.to_string());
            continue;
        };
        if line.trim().is_empty() {
            continue;
        }
        match check(&line) {
            None => {
                to_server.write_all(line.as_bytes()).await?;
                to_server.write_all(b"\n").await?;
            }
            Some(reply) => {
                let _ = replies.send(reply.to_string());
            }
        }
    }
    drop(to_server);
    let _ = session.await;
    drop(replies);
    let _ = writer.await;
    Ok(())
}

/// The error reply a line earns, or `None` when it is a JSON-RPC message.
fn check(line: &str) -> Option<Value> {
    let message: Value = match serde_json::from_str(line) {
        Ok(message) => message,
        Err(e) => {
            return Some(error(
                Value::Null,
                -32700,
                format!("Parse error: the line is not JSON ({e})"),
            ));
        }
    };
    let id = message.get("id").cloned().unwrap_or(Value::Null);
    let is_message = message.get("jsonrpc") == Some(&json!("2.0"))
        && (message.get("method").is_some_and(Value::is_string)
            || message.get("result").is_some()
            || message.get("error").is_some());
    (!is_message).then(|| {
        error(
            id,
            -32600,
            "Invalid Request: expected a JSON-RPC 2.0 object with \"jsonrpc\": \"2.0\" and a \"method\""
                .to_owned(),
        )
    })
}

fn error(id: Value, code: i64, message: String) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn bad_lines_get_json_rpc_errors_and_messages_pass() {
        assert_eq!(check("{nope").unwrap()["error"]["code"], -32700);
        let invalid = check(r#"{"id": 7, "method": "x"}"#).unwrap();
        assert_eq!(invalid["error"]["code"], -32600);
        assert_eq!(invalid["id"], 7);
        assert_eq!(check("[1, 2]").unwrap()["error"]["code"], -32600);
        assert!(check(r#"{"jsonrpc": "2.0", "id": 1, "method": "ping"}"#).is_none());
        assert!(check(r#"{"jsonrpc": "2.0", "method": "notifications/initialized"}"#).is_none());
        assert!(check(r#"{"jsonrpc": "2.0", "id": 1, "result": {}}"#).is_none());
    }
}
