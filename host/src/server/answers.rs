//! Answer bytes a token's clients have not read yet: counted per token
//! from the moment an answer's frame is handed to the connection until the
//! connection asks for the next one (it asks when its buffer has room) or
//! the body ends, so a client that sends calls and never reads what comes
//! back holds at most a bound of the server's memory. Past the bound a
//! new request of that token gets 429, and an answer that would go over it
//! (while others of the token are still unread) is dropped with its
//! connection. One answer of any size always goes out.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use axum::body::{Body, Bytes, HttpBody};
use http_body::Frame;

/// The unread answer bytes by token (and whether one of its answers was
/// dropped since it last held none), and their bound.
pub struct Unread {
    held: Mutex<HashMap<String, (u64, bool)>>,
    max_per_token: u64,
}

impl Unread {
    pub fn new(max_per_token: u64) -> Arc<Self> {
        Arc::new(Self {
            held: Mutex::new(HashMap::new()),
            max_per_token: max_per_token.max(1),
        })
    }

    fn held(&self) -> std::sync::MutexGuard<'_, HashMap<String, (u64, bool)>> {
        self.held.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether `token`'s unread answers are at the bound already, or left
    /// no room for one of its answers: its next answer would be dropped.
    pub fn full(&self, token: &str) -> bool {
        self.held()
            .get(token)
            .is_some_and(|&(n, dropped)| n >= self.max_per_token || dropped)
    }

    /// Counts a frame of `n` bytes of `token`'s, unless that passes the
    /// bound while other frames of the token are held.
    fn take(&self, token: &str, n: u64) -> bool {
        let mut held = self.held();
        let (count, dropped) = held.entry(token.to_owned()).or_default();
        if *count > 0 && count.saturating_add(n) > self.max_per_token {
            *dropped = true;
            return false;
        }
        *count += n;
        true
    }

    fn give_back(&self, token: &str, n: u64) {
        let mut held = self.held();
        if let Some((count, _)) = held.get_mut(token) {
            *count = count.saturating_sub(n);
            if *count == 0 {
                held.remove(token);
            }
        }
    }

    /// `body` with its bytes counted as `token`'s until it ends.
    pub fn counted(self: &Arc<Self>, body: Body, token: String) -> Body {
        Body::new(Counted {
            inner: body,
            unread: Arc::clone(self),
            token,
            held: 0,
        })
    }
}

/// An answer body whose handed-out bytes count against its token.
struct Counted {
    inner: Body,
    unread: Arc<Unread>,
    token: String,
    held: u64,
}

impl HttpBody for Counted {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        // Asked for more, the connection has taken the last frame in (it
        // asks only when its buffer has room): those bytes are the
        // socket's now, and a long stream holds only its newest frame.
        if self.held > 0 {
            let this = &mut *self;
            this.unread
                .give_back(&this.token, std::mem::take(&mut this.held));
        }
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        if let Poll::Ready(Some(Ok(frame))) = &polled
            && let Some(data) = frame.data_ref()
        {
            let n = data.len() as u64;
            let this = &mut *self;
            if !this.unread.take(&this.token, n) {
                // The frame is dropped here, and the connection with it.
                super::metrics::refused("answers-unread");
                super::log::event(
                    "answer-dropped-unread",
                    serde_json::json!({"bytes": n, "held": this.held}),
                );
                return Poll::Ready(Some(Err(axum::Error::new(Unreadable))));
            }
            this.held += n;
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.unread.give_back(&self.token, self.held);
    }
}

/// Why an answer was dropped.
#[derive(Debug)]
struct Unreadable;

impl std::fmt::Display for Unreadable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the token's unread answers are at their bound")
    }
}

impl std::error::Error for Unreadable {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_answer_always_goes_out_and_more_only_within_the_bound() {
        let unread = Unread::new(10);
        assert!(unread.take("alice", 25), "a lone frame of any size");
        assert!(unread.full("alice"));
        assert!(!unread.take("alice", 1), "no other while it is unread");
        assert!(unread.take("bob", 4), "bob's bound is his own");
        unread.give_back("alice", 20);
        assert!(
            unread.full("alice"),
            "below the bound, but a frame was dropped"
        );
        unread.give_back("alice", 5);
        assert!(!unread.full("alice"), "all read: room again");
        assert!(unread.take("alice", 6) && unread.take("alice", 4));
        assert!(!unread.take("alice", 1));
    }
}
