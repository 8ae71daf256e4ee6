//! `GET /mcp` streams (the server's messages to a client between calls):
//! counted per token, so one token cannot hold every connection with
//! them (past its share a new one gets 429), and ended after a lifetime,
//! so none outlives the checks: the client opens it again and its token
//! is checked again then.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes, HttpBody};
use http_body::Frame;
use tokio::time::Sleep;

use super::metrics::OpenStream;

/// The open streams by token, and their bounds.
pub struct Streams {
    open: Mutex<HashMap<String, usize>>,
    max_per_token: usize,
    lifetime: Duration,
}

impl Streams {
    pub fn new(max_per_token: usize, lifetime: Duration) -> Arc<Self> {
        Arc::new(Self {
            open: Mutex::new(HashMap::new()),
            max_per_token,
            lifetime,
        })
    }

    fn open(&self) -> std::sync::MutexGuard<'_, HashMap<String, usize>> {
        self.open.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A slot for one more stream of `token`, or `None` past its share.
    pub fn take(self: &Arc<Self>, token: &str) -> Option<Slot> {
        let mut open = self.open();
        let count = open.entry(token.to_owned()).or_default();
        if *count >= self.max_per_token {
            return None;
        }
        *count += 1;
        Some(Slot {
            streams: Arc::clone(self),
            token: token.to_owned(),
            _counted: OpenStream::new(),
        })
    }

    /// `body` as a stream that holds `slot` and ends after the lifetime.
    pub fn bound(&self, body: Body, slot: Slot) -> Body {
        Body::new(Bounded {
            inner: body,
            ends: Box::pin(tokio::time::sleep(self.lifetime)),
            _slot: slot,
        })
    }
}

/// One open stream of a token, given back when dropped.
pub struct Slot {
    streams: Arc<Streams>,
    token: String,
    _counted: OpenStream,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = self.streams.open();
        if let Some(count) = open.get_mut(&self.token) {
            *count -= 1;
            if *count == 0 {
                open.remove(&self.token);
            }
        }
    }
}

/// A response body that ends at `ends`, holding its slot until dropped.
struct Bounded {
    inner: Body,
    ends: Pin<Box<Sleep>>,
    _slot: Slot,
}

impl HttpBody for Bounded {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        if self.ends.as_mut().poll(cx).is_ready() {
            return Poll::Ready(None);
        }
        Pin::new(&mut self.inner).poll_frame(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_token_has_its_share_and_a_dropped_slot_gives_it_back() {
        let streams = Streams::new(2, Duration::from_secs(1));
        let a1 = streams.take("alice").unwrap();
        let _a2 = streams.take("alice").unwrap();
        assert!(streams.take("alice").is_none());
        let _b1 = streams.take("bob").unwrap();
        drop(a1);
        assert!(streams.take("alice").is_some());
    }
}
