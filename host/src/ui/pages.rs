//! What every view shares: who is signed in ([`Viewer`]), the frame of
//! each page, running a call on the viewer's store off the async threads,
//! and the sign-in, sign-out, stylesheet and error pages.

use std::sync::Arc;

use askama::Template;
use axum::extract::{Form, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use serde::Deserialize;

use super::session::{self, Holder};
use super::{SignIn, Ui, checks};
use crate::memory::{Actor, Memory};
use crate::server::log::page as log_page;
use crate::server::sign_ins::Peer;
use crate::server::{Denial, Principal};

/// The signed-in person of one request.
pub struct Viewer {
    pub principal: Principal,
    pub session: String,
    /// Whose share of sessions and diffs this is: the token's id, or the
    /// owner.
    pub holder: String,
    pub csrf: String,
    /// Signed in as the store's owner (`memcap ui`), not with a token.
    pub owner: bool,
}

impl Viewer {
    /// Whether the grants allow changing anything.
    pub fn can_write(&self) -> bool {
        !self.principal.access.read_only
    }

    /// Whether redaction is offered: to the store's owner only, since a
    /// token has no grant for erasing history (`memcap history redact`
    /// stays with the operator).
    pub fn can_redact(&self) -> bool {
        self.owner && self.can_write()
    }

    /// Who the version history records the page's changes as: the
    /// owner by the name `memcap ui` was started with (`--actor`, else the
    /// OS user), a token as its MCP calls are.
    pub fn actor(&self) -> Actor {
        if self.owner {
            Actor::named(self.principal.label.clone())
        } else {
            Actor {
                name: self.principal.label.clone(),
                id: Some(self.principal.id.clone()),
            }
        }
    }

    /// The frame of a page titled `title` in `section`.
    pub fn frame(&self, title: impl Into<String>, section: &'static str) -> Frame {
        Frame {
            who: self.principal.label.clone(),
            grants: self.principal.access.describe(),
            csrf: self.csrf.clone(),
            can_write: self.can_write(),
            title: title.into(),
            section,
        }
    }

    /// Whether `shown` is this session's CSRF secret.
    pub fn csrf_ok(&self, shown: &str) -> bool {
        session::same_secret(shown, &self.csrf)
    }

    /// Logs and counts one change this viewer asked for, on `path`.
    pub fn log(&self, action: &str, path: Option<&str>, outcome: &str) {
        let actor = self.actor();
        log_page(
            action,
            Some((&actor.name, actor.id.as_deref())),
            path,
            outcome,
            None,
        );
    }
}

/// What the layout around every page shows.
pub struct Frame {
    pub who: String,
    pub grants: String,
    pub csrf: String,
    pub can_write: bool,
    pub title: String,
    /// `home`, `files`, `search`, `graph`, `history`: the tab lit.
    pub section: &'static str,
}

/// The signed-in person, or the answer to send instead (the sign-in page,
/// 429, 503).
pub async fn viewer(ui: &Arc<Ui>, headers: &HeaderMap) -> Result<Viewer, Response> {
    let id = match session::cookie(headers) {
        session::Shown::One(id) => id,
        session::Shown::None => return Err(sign_in_page(ui, None)),
        session::Shown::Several => {
            log_page("session", None, None, "several-cookies", None);
            return Err(sign_in_page(
                ui,
                Some(
                    "Your browser sent this page two sign-ins, and one of them is not the page's own: nothing is shown. Close the browser's other memcap tabs or clear this site's cookies, then sign in again.",
                ),
            ));
        }
    };
    let found = ui.sessions.get(&id).ok_or_else(|| sign_in_page(ui, None))?;
    let (principal, owner) = match &found.holder {
        Holder::Owner(principal) => (principal.clone(), true),
        Holder::Token(token) => match admit(ui, token).await {
            Ok(principal) => (principal, false),
            Err(Denial::Unauthorized(_)) => {
                ui.sessions.close(&id);
                return Err(sign_in_page(
                    ui,
                    Some(
                        "Your token no longer opens this memory (revoked or expired). Sign in again.",
                    ),
                ));
            }
            Err(denial) => return Err(denied(denial)),
        },
    };
    Ok(Viewer {
        principal,
        session: id,
        holder: found.key.clone(),
        csrf: found.csrf.clone(),
        owner,
    })
}

/// Handlers take the signed-in person as an argument; without one, the
/// answer is the sign-in page (or 429, 503).
impl axum::extract::FromRequestParts<Arc<Ui>> for Viewer {
    type Rejection = Response;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        ui: &Arc<Ui>,
    ) -> Result<Self, Response> {
        viewer(ui, &parts.headers).await
    }
}

/// The gate's verdict on `token`, as if it came as a bearer token.
async fn admit(ui: &Arc<Ui>, token: &str) -> Result<Principal, Denial> {
    let mut headers = HeaderMap::new();
    let value = HeaderValue::from_str(&format!("Bearer {token}"))
        .map_err(|_| Denial::Unauthorized("malformed"))?;
    headers.insert(header::AUTHORIZATION, value);
    let gate = Arc::clone(&ui.gate);
    tokio::task::spawn_blocking(move || gate.admit(&headers))
        .await
        .unwrap_or(Err(Denial::Unavailable))
}

/// The answer to a request the gate turned away for a reason other than
/// its token.
fn denied(denial: Denial) -> Response {
    match denial {
        Denial::TooFast(secs) => (
            StatusCode::TOO_MANY_REQUESTS,
            [(header::RETRY_AFTER, secs.to_string())],
            "too many requests for this token: wait and reload\n",
        )
            .into_response(),
        Denial::Unauthorized(_) | Denial::Unavailable => (
            StatusCode::SERVICE_UNAVAILABLE,
            "the token store does not answer: try again in a moment\n",
        )
            .into_response(),
    }
}

/// Runs `f` on the viewer's store, as the viewer, off the async threads.
pub async fn with_memory<T: Send + 'static>(
    ui: &Arc<Ui>,
    viewer: &Viewer,
    f: impl FnOnce(&Memory, &Actor) -> T + Send + 'static,
) -> Result<T, Response> {
    let store = ui.pool.get(&viewer.principal.access).await.map_err(|e| {
        eprintln!(
            "memcap: the page could not open the store of namespace {}: {e}",
            viewer.principal.access.namespace
        );
        plain(
            StatusCode::SERVICE_UNAVAILABLE,
            "the memory store could not be opened; the server's log says why",
        )
    })?;
    let actor = viewer.actor();
    tokio::task::spawn_blocking(move || f(store.memory(), &actor))
        .await
        .map_err(|_| plain(StatusCode::INTERNAL_SERVER_ERROR, "the call failed"))
}

/// An error the component answered with, in its own words (no host path,
/// SQL or OS text).
pub trait Said {
    fn said(&self) -> &str;
}

impl Said for crate::error::ToolError {
    fn said(&self) -> &str {
        &self.message
    }
}

impl Said for memcap_core::failure::Failure {
    fn said(&self) -> &str {
        &self.message
    }
}

/// `f`'s answer, as [`with_memory`] gets it, or the page that says why
/// there is none: the component's words under `heading` with `status`.
pub async fn answered<T: Send + 'static, E: Said + Send + 'static>(
    ui: &Arc<Ui>,
    viewer: &Viewer,
    (status, heading): (StatusCode, &str),
    f: impl FnOnce(&Memory, &Actor) -> Result<T, E> + Send + 'static,
) -> Result<T, Response> {
    match with_memory(ui, viewer, f).await? {
        Ok(answer) => Ok(answer),
        Err(e) => Err(message(viewer, status, heading, e.said(), None)),
    }
}

/// A template rendered, or 500 if it could not be.
pub fn html(page: impl Template) -> Response {
    match page.render() {
        Ok(body) => Html(body).into_response(),
        Err(e) => {
            eprintln!("memcap: the page could not be rendered: {e}");
            plain(
                StatusCode::INTERNAL_SERVER_ERROR,
                "the page could not be rendered",
            )
        }
    }
}

/// A plain-text answer.
pub fn plain(status: StatusCode, text: &str) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        format!("{text}\n"),
    )
        .into_response()
}

#[derive(Template)]
#[template(path = "ui/message.html")]
struct MessagePage {
    frame: Frame,
    heading: String,
    message: String,
    back: Option<String>,
}

/// A page that says what happened (an error the component gave, a
/// refusal, an undo's report), with a link back.
pub fn message(
    viewer: &Viewer,
    status: StatusCode,
    heading: &str,
    message: &str,
    back: Option<String>,
) -> Response {
    let page = MessagePage {
        frame: viewer.frame(heading, ""),
        heading: heading.to_owned(),
        message: message.to_owned(),
        back,
    };
    (status, html(page)).into_response()
}

#[derive(Template)]
#[template(path = "ui/signin.html")]
struct SignInPage {
    by_token: bool,
    notice: Option<String>,
    /// `memcap ui`'s code, from the printed link: a button spends it.
    code: Option<String>,
}

/// The sign-in page (401), with `notice` above it.
pub fn sign_in_page(ui: &Ui, notice: Option<&str>) -> Response {
    let page = SignInPage {
        by_token: ui.sign_in == SignIn::Token,
        notice: notice.map(str::to_owned),
        code: None,
    };
    (StatusCode::UNAUTHORIZED, html(page)).into_response()
}

/// A redirect that also sets or clears the cookie.
fn with_cookie(to: &str, cookie: String) -> Response {
    let mut answer = Redirect::to(to).into_response();
    if let Ok(value) = HeaderValue::from_str(&cookie) {
        answer.headers_mut().insert(header::SET_COOKIE, value);
    }
    answer
}

/// `GET /ui/?code=…`: the printed link asks before it spends the code: a
/// `HEAD`, a link preview or a prefetch reads this page and spends
/// nothing; the person's click posts the code back (same-origin only).
pub fn confirm_code(ui: &Ui, code: &str) -> Response {
    if ui.sign_in != SignIn::Code {
        return sign_in_page(ui, None);
    }
    // Only the code's shape goes back into the page.
    let code =
        (code.len() == 64 && code.bytes().all(|b| b.is_ascii_hexdigit())).then(|| code.to_owned());
    let page = SignInPage {
        by_token: false,
        notice: code
            .is_none()
            .then(|| "That is not a sign-in link memcap ui printed.".to_owned()),
        code,
    };
    html(page)
}

/// A redirect to the overview that sets the session's cookie.
fn signed_in(id: &str) -> Response {
    with_cookie("/ui/", session::set_cookie(id))
}

#[derive(Deserialize)]
pub struct SignInForm {
    #[serde(default)]
    token: Option<String>,
    #[serde(default)]
    code: Option<String>,
}

/// `POST /ui/sign-in`: `memcap ui`'s code, or a token the gate admits,
/// exchanged for a session. Wrong codes lock nobody out: the code is 256
/// random bits, and a lockout would let any local program keep the owner
/// from their own link.
pub async fn sign_in(
    State(ui): State<Arc<Ui>>,
    peer: Option<axum::Extension<Peer>>,
    headers: HeaderMap,
    Form(form): Form<SignInForm>,
) -> Response {
    let peer = peer.map(|axum::Extension(p)| p.0);
    if !checks::keeps_cookie(&headers) {
        log_page("sign-in", None, None, "refused-no-tls", peer);
        return sign_in_page(
            &ui,
            Some(
                "The page signs in only over https (a proxy in front that sends X-Forwarded-Proto: https) or at a .localhost name: open the address memcap printed, or your proxy's https address.",
            ),
        );
    }
    match (ui.sign_in, form.code, form.token) {
        (SignIn::Code, Some(code), _) => match ui.sessions.redeem(code.trim()) {
            Some(principal) => {
                let label = principal.label.clone();
                log_page("sign-in", Some((&label, None)), None, "ok", peer);
                signed_in(&ui.sessions.open(Holder::Owner(principal), "owner"))
            }
            None => {
                log_page("sign-in", None, None, "wrong-code", peer);
                sign_in_page(
                    &ui,
                    Some(
                        "That sign-in link was used already or has expired: each works once, for 5 minutes. Start memcap ui again for a new one.",
                    ),
                )
            }
        },
        (SignIn::Token, _, Some(token)) => token_sign_in(&ui, peer, token.trim()).await,
        (SignIn::Code, ..) => sign_in_page(&ui, Some("Sign in with the link memcap ui printed.")),
        (SignIn::Token, ..) => sign_in_page(&ui, Some("Paste your access token to sign in.")),
    }
}

/// A token exchanged for a session, if the gate admits it; failed tries
/// are counted per address.
async fn token_sign_in(ui: &Arc<Ui>, peer: Option<std::net::IpAddr>, token: &str) -> Response {
    if let Some(ip) = peer
        && let Some(secs) = ui.sign_ins.blocked(ip)
    {
        log_page("sign-in", None, None, "too-many-failures", peer);
        return denied(Denial::TooFast(secs));
    }
    match admit(ui, token).await {
        Ok(principal) => {
            log_page(
                "sign-in",
                Some((&principal.label, Some(&principal.id))),
                None,
                "ok",
                peer,
            );
            signed_in(
                &ui.sessions
                    .open(Holder::Token(token.to_owned()), &principal.id),
            )
        }
        Err(Denial::Unauthorized(_)) => {
            if let Some(ip) = peer {
                ui.sign_ins.failed(ip);
            }
            log_page("sign-in", None, None, "wrong-token", peer);
            sign_in_page(ui, Some("That token does not open this server's memory."))
        }
        Err(denial) => denied(denial),
    }
}

#[derive(Deserialize)]
pub struct CsrfForm {
    csrf: String,
}

/// `POST /ui/sign-out`.
pub async fn sign_out(
    State(ui): State<Arc<Ui>>,
    headers: HeaderMap,
    Form(form): Form<CsrfForm>,
) -> Response {
    if let session::Shown::One(id) = session::cookie(&headers)
        && let Some(found) = ui.sessions.get(&id)
        && found.csrf_ok(&form.csrf)
    {
        ui.sessions.close(&id);
        log_page("sign-out", None, None, "ok", None);
    }
    with_cookie("/ui/", session::clear_cookie())
}

/// `GET /ui/style.css`.
pub async fn style() -> Response {
    (
        [(header::CONTENT_TYPE, "text/css; charset=utf-8")],
        include_str!("../../templates/ui/style.css"),
    )
        .into_response()
}

/// Any other path under `/ui/`.
pub async fn not_found() -> Response {
    plain(StatusCode::NOT_FOUND, "no such page")
}

/// The answer to a form whose CSRF secret is wrong.
pub fn bad_csrf() -> Response {
    plain(
        StatusCode::FORBIDDEN,
        "this form is stale or did not come from the page: reload the page and try again",
    )
}

/// `/memories/…` for a path under `/ui/files/` (no leading slash).
pub fn memories(path: &str) -> String {
    let path = path.trim_matches('/');
    if path.is_empty() {
        "/memories".to_owned()
    } else {
        format!("/memories/{path}")
    }
}

/// The path under `/ui/files/` for `/memories/…`.
pub fn relative(path: &str) -> &str {
    path.strip_prefix("/memories")
        .unwrap_or(path)
        .trim_start_matches('/')
}

/// A link to `section` (`files`, `graph`, …) at `/memories/…` or a path
/// under it, each segment percent-encoded, so no name can break out of it.
pub fn href(section: &str, path: &str) -> String {
    let mut out = format!("/ui/{section}/");
    for (i, part) in relative(path).split('/').enumerate() {
        if i > 0 {
            out.push('/');
        }
        for b in part.bytes() {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                out.push(b as char);
            } else {
                out.push_str(&format!("%{b:02X}"));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_encodes_every_name_it_carries() {
        assert_eq!(
            href("files", "/memories/a b/x?.md"),
            "/ui/files/a%20b/x%3F.md"
        );
        assert_eq!(
            href("graph", "/memories/\"><script>.md"),
            "/ui/graph/%22%3E%3Cscript%3E.md"
        );
        assert_eq!(href("files", "/memories"), "/ui/files/");
    }
}
