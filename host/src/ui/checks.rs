//! What every request to the page passes and every answer carries: the
//! `Host` rule of the MCP endpoint, a same-origin rule for anything that
//! changes (beside each form's CSRF secret), and headers that keep the
//! browser strict: no script, nothing from elsewhere, no framing, no
//! caching, no referrer to other sites.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::Ui;

/// The page's policy: its own stylesheet, its own forms, nothing else.
const CSP: &str = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; \
                   frame-ancestors 'none'; base-uri 'none'";

/// Checks a request, then marks its answer.
pub async fn headers(State(ui): State<Arc<Ui>>, request: Request, next: Next) -> Response {
    let mut answer = match refuse(&ui, request.method(), request.headers()) {
        Some(why) => (StatusCode::FORBIDDEN, why).into_response(),
        None => next.run(request).await,
    };
    let headers = answer.headers_mut();
    for (name, value) in [
        (header::CONTENT_SECURITY_POLICY, CSP),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::REFERRER_POLICY, "same-origin"),
        (header::CACHE_CONTROL, "no-store"),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
    headers.insert(
        header::HeaderName::from_static("cross-origin-opener-policy"),
        HeaderValue::from_static("same-origin"),
    );
    answer
}

/// Why a request is refused before anything reads it, if it is.
fn refuse(ui: &Ui, method: &Method, headers: &HeaderMap) -> Option<&'static str> {
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    let Some(host) = host else {
        return Some("a request to the page needs a Host header\n");
    };
    if !host_allowed(&ui.hosts, host) {
        return Some("this Host is not one the server answers to (see --allow-host)\n");
    }
    if method != Method::GET && method != Method::HEAD && !same_origin(ui, host, headers) {
        return Some("a change must come from the page itself: cross-site requests are refused\n");
    }
    None
}

/// Whether `host` (with or without a port) is one of `allowed`.
fn host_allowed(allowed: &[String], host: &str) -> bool {
    if allowed.iter().any(|h| h == "*") {
        return true;
    }
    let name = match host.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or(""),
        None => host.rsplit_once(':').map_or(host, |(name, _)| name),
    };
    allowed.iter().any(|h| h.eq_ignore_ascii_case(name))
}

/// Whether a change comes from the page: the browser's `Sec-Fetch-Site`
/// says same-origin where it is sent (it decides: a browser may send
/// `Origin: null`); else an `Origin` is this server's (or one allowed). A
/// request with neither still needs the form's secret.
fn same_origin(ui: &Ui, host: &str, headers: &HeaderMap) -> bool {
    if let Some(site) = headers.get("sec-fetch-site") {
        return matches!(site.to_str(), Ok("same-origin"));
    }
    match headers.get(header::ORIGIN).map(HeaderValue::to_str) {
        None => true,
        Some(Ok(origin)) => {
            let own = origin
                .strip_prefix("http://")
                .or_else(|| origin.strip_prefix("https://"))
                .is_some_and(|rest| rest.eq_ignore_ascii_case(host));
            own || ui.origins.iter().any(|o| o == origin)
        }
        Some(Err(_)) => false,
    }
}

/// Whether the page was reached over TLS, as a proxy in front says: the
/// cookie is then `Secure`.
pub fn over_tls(headers: &HeaderMap) -> bool {
    headers
        .get("x-forwarded-proto")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("https"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_match_by_name_with_or_without_a_port() {
        let allowed = vec!["localhost".to_owned(), "::1".to_owned()];
        assert!(host_allowed(&allowed, "localhost:8080"));
        assert!(host_allowed(&allowed, "[::1]:80"));
        assert!(!host_allowed(&allowed, "evil.example:8080"));
        assert!(!host_allowed(&allowed, "localhost.evil.example"));
    }
}
