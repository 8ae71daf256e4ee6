//! Accepting connections. A connection holds no slot until its first
//! bytes arrive, and must send them within a short time: silent sockets
//! wait in a bounded room where the newest pushes out the oldest, so they
//! can neither take the slots nor keep a client that talks out. Then it
//! takes one of a set number of slots, or, when all are taken, one of a
//! few slots kept for calls: a reserved slot serves one request, which
//! must carry a valid token and may not open a `GET` stream, so neither
//! unauthenticated clients nor idle streams can take them. At most a share
//! of all connections come from one peer address (more are closed at
//! once). A request's headers must arrive in time, a write that the client
//! does not read ends the connection ([`super::stall`]), and on shutdown
//! connections finish the request they are in and close.

use super::sign_ins::Peer;
use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, oneshot, watch};
use tower::ServiceExt;

use super::HttpLimits;
use super::stall::WriteDeadline;

/// A request on a slot kept for calls: it is served only with a valid
/// token, and not as a `GET` stream.
#[derive(Clone, Copy, Debug)]
pub struct Reserved;

/// A running accept loop.
pub struct Listening {
    accept: tokio::task::JoinHandle<()>,
    close: watch::Sender<bool>,
    slots: Arc<Semaphore>,
    reserved: Arc<Semaphore>,
    max: (u32, u32),
}

impl Listening {
    pub fn start(listener: TcpListener, app: Router, limits: &HttpLimits) -> Self {
        let max = limits.max_connections.clamp(1, Semaphore::MAX_PERMITS) as u32;
        let kept = limits.reserved_connections.min(Semaphore::MAX_PERMITS) as u32;
        let (close, closing) = watch::channel(false);
        let shared = Arc::new(Shared {
            app,
            slots: Arc::new(Semaphore::new(max as usize)),
            reserved: Arc::new(Semaphore::new(kept as usize)),
            closing,
            read_timeout: limits.read_timeout,
            first_bytes: limits.first_bytes_timeout,
            write_timeout: limits.write_timeout,
            peers: Peers {
                open: Mutex::new(HashMap::new()),
                max: limits.max_connections_per_peer.max(1),
                refused: Mutex::new((0, None)),
            },
            // As many may wait to talk as may be served.
            waiting: Waiting::new(max as usize),
        });
        let (slots, reserved) = (Arc::clone(&shared.slots), Arc::clone(&shared.reserved));
        let accept = tokio::spawn(accept(listener, shared));
        Self {
            accept,
            close,
            slots,
            reserved,
            max: (max, kept),
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
        let all = async {
            let _ = self.slots.acquire_many(self.max.0).await;
            let _ = self.reserved.acquire_many(self.max.1).await;
        };
        let _ = tokio::time::timeout_at(deadline, all).await;
    }
}

/// What every connection's task needs.
struct Shared {
    app: Router,
    slots: Arc<Semaphore>,
    /// Slots kept for calls with a valid token.
    reserved: Arc<Semaphore>,
    closing: watch::Receiver<bool>,
    read_timeout: Duration,
    first_bytes: Duration,
    write_timeout: Duration,
    peers: Peers,
    waiting: Waiting,
}

/// Connections that have no slot yet (silent so far, or waiting for one),
/// oldest first; past the bound the oldest is told to go.
struct Waiting {
    room: Mutex<(u64, BTreeMap<u64, oneshot::Sender<()>>)>,
    max: usize,
}

impl Waiting {
    fn new(max: usize) -> Self {
        Self {
            room: Mutex::new((0, BTreeMap::new())),
            max: max.max(1),
        }
    }

    fn room(&self) -> std::sync::MutexGuard<'_, (u64, BTreeMap<u64, oneshot::Sender<()>>)> {
        self.room.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A place in the room, and the signal that it was given to a newer one.
    fn enter(&self) -> (u64, oneshot::Receiver<()>) {
        let mut room = self.room();
        if room.1.len() >= self.max
            && let Some((_, oldest)) = room.1.pop_first()
        {
            let _ = oldest.send(());
        }
        let id = room.0;
        room.0 += 1;
        let (tell, told) = oneshot::channel();
        room.1.insert(id, tell);
        (id, told)
    }

    fn leave(&self, id: u64) {
        self.room().1.remove(&id);
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

async fn accept(listener: TcpListener, shared: Arc<Shared>) {
    loop {
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
        if !shared.peers.take(from) {
            shared.peers.refused(from);
            drop(stream);
            continue;
        }
        let shared = Arc::clone(&shared);
        tokio::spawn(async move {
            if let Some((slot, reserved)) = seat(&shared, &stream).await {
                serve(&shared, stream, from, reserved).await;
                drop(slot);
            }
            shared.peers.give_back(from);
        });
    }
}

/// Waits, outside any slot, for the connection's first bytes and then for
/// a slot: a free one, else one kept for calls (`true`), else the next
/// one freed. `None`: the connection is to close (silent too long, pushed
/// out of the room, no slot in time, or the server stopping).
async fn seat(shared: &Shared, stream: &TcpStream) -> Option<(OwnedSemaphorePermit, bool)> {
    let (id, mut told) = shared.waiting.enter();
    let mut closing = shared.closing.clone();
    let mut first = [0u8; 1];
    let seated = async {
        tokio::select! {
            // A peek, not `readable()`, which may wake before any byte
            // is there.
            talked = stream.peek(&mut first) => {
                if talked.ok()? == 0 {
                    return None;
                }
            }
            _ = tokio::time::sleep(shared.first_bytes) => {
                super::metrics::refused("silent-connection");
                return None;
            }
            _ = &mut told => {
                super::metrics::refused("waiting-room-full");
                return None;
            }
            _ = closing.changed() => return None,
        }
        if let Ok(slot) = Arc::clone(&shared.slots).try_acquire_owned() {
            return Some((slot, false));
        }
        if let Ok(slot) = Arc::clone(&shared.reserved).try_acquire_owned() {
            return Some((slot, true));
        }
        tokio::select! {
            slot = Arc::clone(&shared.slots).acquire_owned() => Some((slot.ok()?, false)),
            _ = tokio::time::sleep(shared.read_timeout) => {
                super::metrics::refused("no-connection-slot");
                None
            }
            _ = &mut told => {
                super::metrics::refused("waiting-room-full");
                None
            }
        }
    }
    .await;
    shared.waiting.leave(id);
    seated
}

/// Serves the connection's requests until it closes or the server stops.
async fn serve(shared: &Shared, stream: TcpStream, from: IpAddr, reserved: bool) {
    let app = shared.app.clone();
    let service = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
        let mut request = request.map(Body::new);
        request.extensions_mut().insert(Peer(from));
        if reserved {
            request.extensions_mut().insert(Reserved);
        }
        app.clone().oneshot(request)
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(shared.read_timeout)
        // A slot kept for calls serves one request.
        .keep_alive(!reserved);
    let io = TokioIo::new(WriteDeadline::new(stream, shared.write_timeout));
    let connection = builder.serve_connection(io, service);
    tokio::pin!(connection);
    let mut closing = shared.closing.clone();
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
}
