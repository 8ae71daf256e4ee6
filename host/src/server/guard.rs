//! What every `/mcp` request passes before MCP sees it, in this order:
//! the gate (token, rate limit), the session's owner (a session belongs
//! to the token that opened it), the session cap, and the body (its size
//! and the time to send it). Every refusal is logged.

use std::net::IpAddr;

use super::sign_ins::{Peer, SignIns};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body_util::{BodyExt, LengthLimitError, Limited};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

use super::auth::{Denial, Gate};
use super::busy::Busy;
use super::{HttpLimits, log};

const SESSION_HEADER: &str = "mcp-session-id";

/// The checks, with what they need.
pub struct Guard {
    gate: Arc<Gate>,
    sessions: Arc<LocalSessionManager>,
    /// Which token opened each session this process made.
    owners: Mutex<HashMap<String, String>>,
    limits: HttpLimits,
    /// Requests being checked, read or routed, for a shutdown to wait on.
    busy: Busy,
    /// Failed sign-ins per peer.
    sign_ins: SignIns,
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
            owners: Mutex::new(HashMap::new()),
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

    fn owners(&self) -> std::sync::MutexGuard<'_, HashMap<String, String>> {
        self.owners.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Remembers who opened `session`, forgetting sessions that ended.
    async fn own(&self, session: String, owner: String) {
        let live: Option<Vec<String>> =
            if self.owners().len() >= 2 * self.limits.max_sessions.max(16) {
                Some(
                    self.sessions
                        .sessions
                        .read()
                        .await
                        .keys()
                        .map(|id| id.to_string())
                        .collect(),
                )
            } else {
                None
            };
        let mut owners = self.owners();
        if let Some(live) = live {
            owners.retain(|id, _| live.contains(id));
        }
        owners.insert(session, owner);
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
    let principal = match tokio::task::spawn_blocking(move || gate.admit(&headers)).await {
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

    let session = parts
        .headers
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let owner = session
        .as_ref()
        .and_then(|id| guard.owners().get(id).cloned());
    if owner.is_some_and(|owner| owner != principal.id) {
        // As for a session that does not exist: nothing to learn.
        return refuse(
            peer,
            StatusCode::NOT_FOUND,
            "session-of-another-token",
            "Session not found\n",
        );
    }
    if session.is_none()
        && parts.method == Method::POST
        && guard.sessions.sessions.read().await.len() >= guard.limits.max_sessions
    {
        return refuse_for(
            peer,
            StatusCode::SERVICE_UNAVAILABLE,
            "too-many-sessions",
            "The server holds as many sessions as it may; retry shortly.\n",
            5,
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

    let owner = principal.id.clone();
    parts.extensions.insert(principal);
    let response = next
        .run(Request::from_parts(parts, Body::from(bytes)))
        .await;
    if session.is_none()
        && let Some(new) = response
            .headers()
            .get(SESSION_HEADER)
            .and_then(|v| v.to_str().ok())
    {
        guard.own(new.to_owned(), owner).await;
    }
    response
}
