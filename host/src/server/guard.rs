//! What every `/mcp` request passes before MCP sees it, in this order:
//! the gate (token, rate limit), the session's owner (a session belongs
//! to the token that opened it), the body (its size and the time to send
//! it), and for an `initialize`, room for a new session (per token, then
//! in all). Requests without a session that open none (the stateless
//! 2026-07-28 protocol) never wait on anyone's sessions. Every refusal is
//! logged.

use std::net::IpAddr;

use super::answers::Unread;
use super::listen::Reserved;
use super::owners::Owners;
use super::sign_ins::{Peer, SignIns};
use super::streams::Streams;
use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::Arc;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body_util::{BodyExt, LengthLimitError, Limited};
use rmcp::transport::streamable_http_server::session::SessionManager;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

use super::auth::{Denial, Gate};
use super::busy::Busy;
use super::{HttpLimits, log};

const SESSION_HEADER: &str = "mcp-session-id";
/// The longest a request waits for its token to be checked.
const TOKEN_CHECK_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// The checks, with what they need.
pub struct Guard {
    gate: Arc<Gate>,
    sessions: Arc<LocalSessionManager>,
    /// Which token opened each session this process made.
    owners: Owners,
    limits: HttpLimits,
    /// Requests being checked, read or routed, for a shutdown to wait on.
    busy: Busy,
    /// Failed sign-ins per peer.
    sign_ins: SignIns,
    /// Open `GET` streams per token.
    streams: Arc<Streams>,
    /// Answer bytes per token not read yet.
    unread: Arc<Unread>,
}

impl Guard {
    pub fn new(
        gate: Arc<Gate>,
        sessions: Arc<LocalSessionManager>,
        limits: HttpLimits,
        busy: Busy,
    ) -> Arc<Self> {
        Arc::new(Self {
            gate,
            sessions,
            busy,
            sign_ins: SignIns::new(limits.max_failed_sign_ins),
            streams: Streams::new(limits.max_streams_per_token, limits.stream_lifetime),
            owners: Owners::default(),
            unread: Unread::new(limits.max_unread_bytes),
            limits,
        })
    }

    /// `service` behind the checks.
    pub fn wrap<S>(self: Arc<Self>, service: S) -> Router
    where
        S: tower::Service<Request, Error = std::convert::Infallible>
            + Clone
            + Send
            + Sync
            + 'static,
        S::Response: IntoResponse,
        S::Future: Send + 'static,
    {
        Router::new()
            .fallback_service(service)
            .layer(axum::middleware::from_fn_with_state(self, check))
    }

    /// Closes the sessions (and so the streams) of every token that no
    /// longer opens anything: revoked, expired or removed since it opened them.
    pub async fn close_revoked(&self) {
        let holders = self.owners.tokens();
        if holders.is_empty() {
            return;
        }
        let gate = Arc::clone(&self.gate);
        let gone = tokio::task::spawn_blocking(move || gate.no_longer_valid(holders)).await;
        for token in gone.unwrap_or_default() {
            let sessions = self.owners.of(&token);
            for session in &sessions {
                let _ = self.sessions.close_session(&session.as_str().into()).await;
                self.owners.forget(session);
            }
            log::event(
                "sessions-closed-token-revoked",
                serde_json::json!({"token": token, "sessions": sessions.len()}),
            );
        }
    }

    /// Makes room for a session `token` opens: past its share, or when the
    /// server holds all it may, the token's least recently used session is
    /// closed. `false` when the server is full and the token holds none.
    async fn make_room(&self, token: &str, peer: Option<IpAddr>) -> bool {
        let live: HashSet<String> = self
            .sessions
            .sessions
            .read()
            .await
            .keys()
            .map(|id| id.to_string())
            .collect();
        self.owners.retain(&live);
        let mine = self.owners.of(token);
        let full = live.len() >= self.limits.max_sessions;
        if mine.len() < self.limits.max_sessions_per_token && !full {
            return true;
        }
        let Some(oldest) = mine.first() else {
            return false;
        };
        // Closing ends the session's streams too; its id is unknown from now.
        let _ = self.sessions.close_session(&oldest.as_str().into()).await;
        self.owners.forget(oldest);
        log::event(
            "session-closed-for-room",
            serde_json::json!({"peer": peer.map(|p| p.to_string()), "sessions_of_token": mine.len()}),
        );
        true
    }
}

fn refuse(peer: Option<IpAddr>, status: StatusCode, why: &str, message: &str) -> Response {
    log::refused(status.as_u16(), why, peer);
    let mut response = (status, message.to_owned()).into_response();
    // The request's body may be unread: the connection cannot carry another
    // request, and the client is told so rather than finding it closed.
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    if status == StatusCode::UNAUTHORIZED {
        let challenge = if why == "no-token" {
            r#"Bearer realm="memcap""#
        } else {
            r#"Bearer realm="memcap", error="invalid_token""#
        };
        response.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static(challenge),
        );
    }
    response
}

/// A refusal with `Retry-After`: the one answer for every limit a caller hit.
fn refuse_for(
    peer: Option<IpAddr>,
    status: StatusCode,
    why: &str,
    message: &str,
    seconds: u64,
) -> Response {
    let mut response = refuse(peer, status, why, message);
    if let Ok(value) = HeaderValue::from_str(&seconds.to_string()) {
        response.headers_mut().insert(header::RETRY_AFTER, value);
    }
    response
}

async fn check(State(guard): State<Arc<Guard>>, request: Request, next: Next) -> Response {
    let _working = guard.busy.start();
    let (mut parts, body) = request.into_parts();
    let peer = parts.extensions.get::<Peer>().map(|p| p.0);
    if let Some(seconds) = peer.and_then(|p| guard.sign_ins.blocked(p)) {
        return refuse_for(
            peer,
            StatusCode::TOO_MANY_REQUESTS,
            "too-many-failed-sign-ins",
            "Too many failed sign-ins from this address; retry after the time in Retry-After.\n",
            seconds,
        );
    }
    let gate = Arc::clone(&guard.gate);
    let headers = parts.headers.clone();
    let admit = tokio::task::spawn_blocking(move || gate.admit(&headers));
    // A token store that stopped answering (a paused database) holds no
    // request past the deadline: it gets 503, as a store that fails does.
    let admitted = tokio::time::timeout(TOKEN_CHECK_WAIT, admit)
        .await
        .unwrap_or(Ok(Err(Denial::Unavailable)));
    let principal = match admitted {
        Ok(Ok(principal)) => principal,
        Ok(Err(Denial::Unauthorized(why))) => {
            if let Some(peer) = peer {
                guard.sign_ins.failed(peer);
            }
            return refuse(
                peer,
                StatusCode::UNAUTHORIZED,
                why,
                "A valid bearer token is needed: send `Authorization: Bearer TOKEN` (memcap token create makes one).\n",
            );
        }
        Ok(Err(Denial::TooFast(seconds))) => {
            return refuse_for(
                peer,
                StatusCode::TOO_MANY_REQUESTS,
                "rate-limited",
                "Too many calls with this token; retry after the time in Retry-After.\n",
                seconds,
            );
        }
        Ok(Err(Denial::Unavailable)) | Err(_) => {
            return refuse(
                peer,
                StatusCode::SERVICE_UNAVAILABLE,
                "token-store-unavailable",
                "The server cannot check tokens right now; retry shortly.\n",
            );
        }
    };

    if parts.extensions.get::<Reserved>().is_some() && parts.method == Method::GET {
        // A slot kept for calls is not held by a stream.
        return refuse_for(
            peer,
            StatusCode::SERVICE_UNAVAILABLE,
            "no-slot-for-stream",
            "The server is serving as many connections as it may; open the stream again shortly.\n",
            5,
        );
    }
    if guard.unread.full(&principal.id) {
        return refuse_for(
            peer,
            StatusCode::TOO_MANY_REQUESTS,
            "answers-unread",
            "This token's clients have left too many answer bytes unread; read them, or retry after the time in Retry-After.\n",
            5,
        );
    }

    let session = parts
        .headers
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let owner = session.as_ref().and_then(|id| guard.owners.used(id));
    if owner.is_some_and(|owner| owner != principal.id) {
        // As for a session that does not exist: nothing to learn.
        return refuse(
            peer,
            StatusCode::NOT_FOUND,
            "session-of-another-token",
            "Session not found\n",
        );
    }
    let max = guard.limits.max_body;
    let declared = parts
        .headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    let too_large = || {
        refuse(
            peer,
            StatusCode::PAYLOAD_TOO_LARGE,
            "body-too-large",
            &format!("The request body is over {max} bytes, the most this server takes.\n"),
        )
    };
    if declared.is_some_and(|n| n > max as u64) {
        return too_large();
    }
    let read = tokio::time::timeout(guard.limits.read_timeout, Limited::new(body, max).collect());
    let bytes: Bytes = match read.await {
        Ok(Ok(collected)) => collected.to_bytes(),
        Ok(Err(e)) if e.downcast_ref::<LengthLimitError>().is_some() => return too_large(),
        Ok(Err(_)) => {
            return refuse(
                peer,
                StatusCode::BAD_REQUEST,
                "body-unreadable",
                "The request body could not be read.\n",
            );
        }
        Err(_) => {
            return refuse(
                peer,
                StatusCode::REQUEST_TIMEOUT,
                "body-too-slow",
                "The request body took too long to arrive.\n",
            );
        }
    };

    if let Err(seconds) = guard.gate.charge(&principal.id, bytes.len()) {
        return refuse_for(
            peer,
            StatusCode::TOO_MANY_REQUESTS,
            "byte-rate-limited",
            "Too many bytes sent with this token; retry after the time in Retry-After.\n",
            seconds,
        );
    }
    if session.is_none()
        && parts.method == Method::POST
        && opens_session(&bytes)
        && !guard.make_room(&principal.id, peer).await
    {
        return refuse_for(
            peer,
            StatusCode::SERVICE_UNAVAILABLE,
            "too-many-sessions",
            "The server holds as many sessions as it may; retry shortly.\n",
            5,
        );
    }

    let owner = principal.id.clone();
    parts.extensions.insert(principal);
    let counted_as = owner.clone();
    let slot = if parts.method == Method::GET {
        match guard.streams.take(&owner) {
            Some(slot) => Some(slot),
            None => {
                return refuse_for(
                    peer,
                    StatusCode::TOO_MANY_REQUESTS,
                    "too-many-streams",
                    "This token holds as many GET streams as it may; close one, or retry later.\n",
                    5,
                );
            }
        }
    } else {
        None
    };
    let mut response = next
        .run(Request::from_parts(parts, Body::from(bytes)))
        .await;
    if let Some(slot) = slot
        && response.status() == StatusCode::OK
    {
        // The body holds the slot: it is given back when the stream ends.
        response = response.map(|body| guard.streams.bound(body, slot));
    }
    let response = response.map(|body| guard.unread.counted(body, counted_as));
    if session.is_none()
        && let Some(new) = response
            .headers()
            .get(SESSION_HEADER)
            .and_then(|v| v.to_str().ok())
    {
        guard.owners.own(new.to_owned(), owner);
    }
    response
}

/// Whether a request body is an `initialize`: the one request that opens a
/// session (in every protocol version rmcp speaks).
fn opens_session(body: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct Request<'a> {
        #[serde(borrow)]
        method: Option<Cow<'a, str>>,
    }
    serde_json::from_slice::<Request>(body)
        .ok()
        .and_then(|r| r.method)
        .is_some_and(|m| m == "initialize")
}
