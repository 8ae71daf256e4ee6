//! The server's log: one JSON line on standard error per call and per
//! refused request, for an operator's log collector. A line names who
//! (the token's label and id, never the token), where (the namespace),
//! what (the tool and, for `memory`, its command), how long and how it
//! ended; never a path, a note's text or a query.

use std::time::Duration;

use serde_json::json;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use super::auth::Principal;

fn now() -> String {
    OffsetDateTime::now_utc()
        .format(&Rfc3339)
        .unwrap_or_default()
}

fn write(line: serde_json::Value) {
    eprintln!("{line}");
}

/// One call a principal made.
pub fn call(
    principal: &Principal,
    tool: &str,
    command: Option<&str>,
    took: Duration,
    outcome: &str,
) {
    super::metrics::call(tool, outcome, took);
    write(json!({
        "time": now(),
        "token": principal.label,
        "token_id": principal.id,
        "namespace": principal.access.namespace,
        "tool": tool,
        "command": command,
        "ms": (took.as_secs_f64() * 1000.0 * 100.0).round() / 100.0,
        "outcome": outcome,
    }));
}

/// One action a person took on the page (a sign-in, sign-out, edit,
/// restore, revert or redaction): by whom (the session's actor and token
/// id; never a token or sign-in code), on what path, and how it ended.
/// Paths are the one thing here a note's author chose: JSON escapes them,
/// so none can forge a line.
pub fn page(
    action: &str,
    who: Option<(&str, Option<&str>)>,
    path: Option<&str>,
    outcome: &str,
    peer: Option<std::net::IpAddr>,
) {
    super::metrics::page(action, outcome);
    write(json!({
        "time": now(),
        "page": action,
        "actor": who.map(|(name, _)| name),
        "token_id": who.and_then(|(_, id)| id),
        "path": path,
        "outcome": outcome,
        "peer": peer.map(|p| p.to_string()),
    }));
}

/// A request turned away before any store saw it.
pub fn refused(status: u16, why: &str, peer: Option<std::net::IpAddr>) {
    super::metrics::refused(why);
    write(json!({
        "time": now(),
        "status": status,
        "outcome": why,
        "peer": peer.map(|p| p.to_string()),
    }));
}

/// The server starting or stopping.
pub fn event(what: &str, detail: serde_json::Value) {
    write(json!({
        "time": now(),
        "event": what,
        "detail": detail,
    }));
}
