//! What every request to the page passes and every answer carries: the
//! page's own `Host` (its random `.localhost` name, or a name a proxy
//! reaches it by; never an address or `localhost`, which every local
//! server shares, cookies included), a same-origin rule for anything that
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
    if !page_host(&ui.name, &ui.named, ui.any_name, host) {
        // The page's own name is not said here: whoever asks at another
        // address may be the other server it is kept from.
        return Some(
            "the page is not served at this address: open the address memcap printed when it started (or the name your proxy serves it at)\n",
        );
    }
    if method != Method::GET && method != Method::HEAD && !same_origin(ui, host, headers) {
        return Some("a change must come from the page itself: cross-site requests are refused\n");
    }
    None
}

/// The name in a `Host` header, without its port.
fn host_name(host: &str) -> &str {
    match host.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or(""),
        None => host.rsplit_once(':').map_or(host, |(name, _)| name),
    }
}

/// Whether the page answers at `host`: its own name, or one a proxy
/// reaches it by; never an address or plain `localhost`, whose cookies
/// every server on that machine (any port) receives.
fn page_host(own: &str, named: &[String], any_name: bool, host: &str) -> bool {
    let name = host_name(host);
    if name.eq_ignore_ascii_case(own) {
        return true;
    }
    if shared_name(name) {
        return false;
    }
    any_name || named.iter().any(|h| h.eq_ignore_ascii_case(name))
}

/// An address, or `localhost`: names other servers share.
fn shared_name(name: &str) -> bool {
    name.parse::<std::net::IpAddr>().is_ok()
        || name.eq_ignore_ascii_case("localhost")
        || name.eq_ignore_ascii_case("localhost.")
        || name.is_empty()
}

/// Whether a browser keeps the page's `Secure` cookie for this request:
/// over TLS (as a proxy in front says), or at a `localhost` name, which
/// browsers treat as secure.
pub fn keeps_cookie(headers: &HeaderMap) -> bool {
    let name = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(host_name)
        .unwrap_or("");
    over_tls(headers) || name.to_ascii_lowercase().ends_with(".localhost")
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
    fn the_page_answers_at_its_own_name_and_a_proxys_never_at_a_shared_one() {
        let own = "memcap-0123.localhost";
        let named = ["memcap.example.com".to_owned(), "127.0.0.1".to_owned()];
        let ok = |host: &str| page_host(own, &named, false, host);
        for good in [
            "memcap-0123.localhost:8766",
            "MEMCAP-0123.localhost",
            "memcap.example.com",
        ] {
            assert!(ok(good), "{good}");
        }
        for bad in [
            "127.0.0.1:8766",
            "localhost:8766",
            "[::1]:8766",
            "other.localhost:8766",
            "memcap-0124.localhost",
            "memcap.example.com.evil.example",
            "",
        ] {
            assert!(!ok(bad), "{bad}");
        }
        let any = |host: &str| page_host(own, &[], true, host);
        assert!(any("anything.example"));
        assert!(!any("127.0.0.1:80") && !any("localhost"));
    }
}
