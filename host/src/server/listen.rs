//! Accepting connections: at most a set number open at once (the rest wait
//! in the kernel's listen queue), and at most a share of them from one peer
//! address (more are closed at once), so one host's silent sockets cannot
//! keep everyone else waiting; each closed if a request's headers do not
//! arrive in time, so a client that connects and sends nothing (or a byte
//! a second) holds nothing for long. On shutdown, connections finish the
//! request they are in and close.

use super::sign_ins::Peer;
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, watch};
use tower::ServiceExt;

use super::HttpLimits;

/// A running accept loop.
pub struct Listening {
    accept: tokio::task::JoinHandle<()>,
    close: watch::Sender<bool>,
    open: Arc<Semaphore>,
    max: u32,
}

impl Listening {
    pub fn start(listener: TcpListener, app: Router, limits: &HttpLimits) -> Self {
        let max = limits.max_connections.clamp(1, Semaphore::MAX_PERMITS) as u32;
        let open = Arc::new(Semaphore::new(max as usize));
        let (close, closing) = watch::channel(false);
        let read_timeout = limits.read_timeout;
        let peers = Arc::new(Peers {
            open: Mutex::new(HashMap::new()),
            max: limits.max_connections_per_peer.max(1),
            refused: Mutex::new((0, None)),
        });
        let accept = tokio::spawn(accept(
            listener,
            app,
            Arc::clone(&open),
            closing,
            read_timeout,
            peers,
        ));
        Self {
            accept,
            close,
            open,
            max,
        }
    }

    /// Takes no more connections.
    pub fn stop_accepting(&self) {
        self.accept.abort();
    }

    /// Asks every connection to close after its current request, and waits
    /// until they have or `deadline` passes.
    pub async fn close(self, deadline: tokio::time::Instant) {
        let _ = self.close.send(true);
        let _ = tokio::time::timeout_at(deadline, self.open.acquire_many(self.max)).await;
    }
}

/// Connections open per peer address, and those turned away.
struct Peers {
    open: Mutex<HashMap<IpAddr, usize>>,
    max: usize,
    /// Refused since the last log line, and when that was.
    refused: Mutex<(u64, Option<Instant>)>,
}

impl Peers {
    fn open(&self) -> std::sync::MutexGuard<'_, HashMap<IpAddr, usize>> {
        self.open.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Counts a connection from `peer`, unless it holds its share already.
    fn take(&self, peer: IpAddr) -> bool {
        let mut open = self.open();
        let count = open.entry(peer).or_default();
        if *count >= self.max {
            return false;
        }
        *count += 1;
        true
    }

    fn give_back(&self, peer: IpAddr) {
        let mut open = self.open();
        if let Some(count) = open.get_mut(&peer) {
            *count -= 1;
            if *count == 0 {
                open.remove(&peer);
            }
        }
    }

    /// Notes a refused connection: counted in the metrics each time, logged
    /// at most once every 10 s (a flood must not flood the log too).
    fn refused(&self, peer: IpAddr) {
        super::metrics::refused("too-many-connections-from-peer");
        let mut refused = self.refused.lock().unwrap_or_else(|p| p.into_inner());
        refused.0 += 1;
        if refused
            .1
            .is_none_or(|at| at.elapsed() >= Duration::from_secs(10))
        {
            super::log::event(
                "connections-refused",
                serde_json::json!({"peer": peer.to_string(), "refused": refused.0, "per_peer": self.max}),
            );
            *refused = (0, Some(Instant::now()));
        }
    }
}

async fn accept(
    listener: TcpListener,
    app: Router,
    open: Arc<Semaphore>,
    closing: watch::Receiver<bool>,
    read_timeout: Duration,
    peers: Arc<Peers>,
) {
    loop {
        let Ok(permit) = Arc::clone(&open).acquire_owned().await else {
            return;
        };
        let (stream, peer) = match listener.accept().await {
            Ok((stream, peer)) => {
                // Answers go out in several writes (an SSE stream): without
                // this, Nagle's algorithm holds each reply ~40 ms for an ACK.
                let _ = stream.set_nodelay(true);
                (stream, peer)
            }
            Err(e) => {
                // Out of file descriptors and the like: wait, then go on.
                eprintln!("memcap: could not accept a connection: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let from = peer.ip();
        if !peers.take(from) {
            peers.refused(from);
            drop(stream);
            continue;
        }
        let peers = Arc::clone(&peers);
        let app = app.clone();
        let mut closing = closing.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
                let mut request = request.map(Body::new);
                request.extensions_mut().insert(Peer(peer.ip()));
                app.clone().oneshot(request)
            });
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(read_timeout)
                .keep_alive(true);
            let connection = builder.serve_connection(TokioIo::new(stream), service);
            tokio::pin!(connection);
            loop {
                tokio::select! {
                    _ = connection.as_mut() => break,
                    changed = closing.changed() => {
                        if changed.is_err() || *closing.borrow() {
                            connection.as_mut().graceful_shutdown();
                            let _ = connection.as_mut().await;
                            break;
                        }
                    }
                }
            }
            peers.give_back(from);
            drop(permit);
        });
    }
}
