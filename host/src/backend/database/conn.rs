//! One connection to the database with its prepared statements: each query
//! memcap sends is prepared once per connection, so a call costs one round
//! trip per statement instead of two.
//!
//! The connection is driven on the calling thread, and a wait for an answer
//! first polls for up to [`SPIN`] before it sleeps: on a virtual machine,
//! waking a sleeping thread costs as much as the server's whole answer (a
//! `SELECT` over a unix socket measured 51 µs sleeping, 22 µs polling).

use std::collections::HashMap;
use std::future::{Future, poll_fn};
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use tokio::runtime::Runtime;
use tokio_postgres::tls::MakeTlsConnect;
use tokio_postgres::types::{ToSql, Type};
use tokio_postgres::{
    AsyncMessage, Client, Config, Error, Row, SimpleQueryMessage, Socket, Statement,
};

/// How long a wait polls before it sleeps: a warm read's answer comes well
/// within it; a commit's (an fsync) does not, and sleeps.
const SPIN: Duration = Duration::from_micros(100);

/// Reads the server's messages and writes queued requests; `Ready(None)`
/// once the connection is closed.
type Driver = Box<dyn FnMut(&mut Context<'_>) -> Poll<Option<Result<AsyncMessage, Error>>> + Send>;

pub(crate) struct Conn {
    client: Arc<Client>,
    driver: Driver,
    /// A current-thread runtime: only this connection's waits drive it.
    runtime: Arc<Runtime>,
    statements: HashMap<String, Statement>,
    /// The longest any wait for the server lasts. The server stops a
    /// statement at the call's limit itself (`statement_timeout`); this is
    /// for a server that stopped answering at all (paused, cut off).
    deadline: Duration,
    /// A wait ran out: the request's answer may still come, so nothing
    /// more is sent on this connection.
    broken: bool,
}

type Params<'a> = &'a [&'a (dyn ToSql + Sync)];

/// A query sent whose answer is not read yet: see [`Conn::send`].
pub(crate) struct Pending(Pin<Box<dyn Future<Output = Result<Vec<Row>, Error>> + Send>>);

/// One request of a [`Conn::pipeline`].
#[derive(Clone, Copy)]
pub(crate) enum Ask<'a> {
    /// Statements without parameters, answered as text. Each `Simple` is
    /// a transaction of its own unless one is open: an error in one does
    /// not undo another.
    Simple(&'a str),
    /// A query sent unprepared with its parameters' types: one round trip
    /// however new the connection.
    Typed(&'a str, &'a [(&'a (dyn ToSql + Sync), Type)]),
    /// A query by its prepared statement (prepared first, a round trip of
    /// its own, when it is not yet).
    Prepared(&'a str, Params<'a>),
    /// A statement prepared for later. One that fails is left unprepared:
    /// its first use prepares it again and meets the error there.
    Prepare(&'a str),
}

/// The answer to an [`Ask`], in the same place.
pub(crate) enum Answer {
    Simple(Result<Vec<SimpleQueryMessage>, Error>),
    Rows(Result<Vec<Row>, Error>),
    Prepared,
}

/// What a request of a pipeline came back with.
enum Got {
    Answer(Answer),
    Statement(String, Result<Statement, Error>),
}

/// A runtime for one store's connections.
pub(crate) fn runtime() -> std::io::Result<Arc<Runtime>> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    Ok(Arc::new(runtime))
}

impl Conn {
    /// Connects as `config` says, through `tls`, on `runtime`, every wait
    /// (the connection's setup too) within `deadline`.
    pub fn connect<T>(
        config: &Config,
        tls: T,
        runtime: Arc<Runtime>,
        deadline: Duration,
    ) -> Result<Self, Error>
    where
        T: MakeTlsConnect<Socket> + 'static + Send,
        T::Stream: Send,
    {
        // Made inside the runtime: a timer needs its clock.
        let connecting =
            runtime.block_on(async { tokio::time::timeout(deadline, config.connect(tls)).await });
        let (client, mut connection) = connecting.map_err(|_| Error::__private_api_timeout())??;
        Ok(Self {
            client: Arc::new(client),
            driver: Box::new(move |cx| connection.poll_message(cx)),
            runtime,
            statements: HashMap::new(),
            deadline,
            broken: false,
        })
    }

    fn statement(&mut self, sql: &str) -> Result<Statement, Error> {
        if let Some(statement) = self.statements.get(sql) {
            return Ok(statement.clone());
        }
        let client = Arc::clone(&self.client);
        let statement = self.wait(client.prepare(sql))?;
        self.statements.insert(sql.to_owned(), statement.clone());
        Ok(statement)
    }

    pub fn execute(&mut self, sql: &str, params: Params<'_>) -> Result<u64, Error> {
        let statement = self.statement(sql)?;
        let client = Arc::clone(&self.client);
        let request = client.execute(&statement, params);
        self.wait(request)
    }

    pub fn query(&mut self, sql: &str, params: Params<'_>) -> Result<Vec<Row>, Error> {
        let statement = self.statement(sql)?;
        let client = Arc::clone(&self.client);
        let request = client.query(&statement, params);
        self.wait(request)
    }

    pub fn query_opt(&mut self, sql: &str, params: Params<'_>) -> Result<Option<Row>, Error> {
        let statement = self.statement(sql)?;
        let client = Arc::clone(&self.client);
        let request = client.query_opt(&statement, params);
        self.wait(request)
    }

    pub fn query_one(&mut self, sql: &str, params: Params<'_>) -> Result<Row, Error> {
        let statement = self.statement(sql)?;
        let client = Arc::clone(&self.client);
        let request = client.query_one(&statement, params);
        self.wait(request)
    }

    /// Sends a query and returns at once: the caller works while the
    /// server answers, then reads the answer with [`Conn::finish`]. Dropped
    /// unfinished, its answer is thrown away when it comes.
    pub fn send(&mut self, sql: &str, params: Vec<i64>) -> Result<Pending, Error> {
        let statement = self.statement(sql)?;
        let client = Arc::clone(&self.client);
        let mut request: Pin<Box<dyn Future<Output = _> + Send>> = Box::pin(async move {
            let params: Vec<&(dyn ToSql + Sync)> =
                params.iter().map(|p| p as &(dyn ToSql + Sync)).collect();
            client.query(&statement, &params).await
        });
        let _entered = self.runtime.enter();
        let mut cx = Context::from_waker(Waker::noop());
        // The first poll queues the request, the driver's writes it out.
        if let Poll::Ready(answer) = request.as_mut().poll(&mut cx) {
            return Ok(Pending(Box::pin(std::future::ready(answer))));
        }
        while let Poll::Ready(Some(message)) = (self.driver)(&mut cx) {
            message?;
        }
        Ok(Pending(request))
    }

    /// The answer to a query [`Conn::send`] sent.
    pub fn finish(&mut self, pending: Pending) -> Result<Vec<Row>, Error> {
        self.wait(pending.0)
    }

    /// Sends every request of `asks` before waiting for any answer (the
    /// server answers them in order): one round trip where each alone
    /// would take its own. A new connection's first requests each cost the
    /// server a catalog lookup too; sent together, the process waits once.
    pub fn pipeline(&mut self, asks: &[Ask<'_>]) -> Result<Vec<Answer>, Error> {
        let mut statements = Vec::with_capacity(asks.len());
        for ask in asks {
            statements.push(match ask {
                Ask::Prepared(sql, _) => Some(self.statement(sql)?),
                _ => None,
            });
        }
        let requests: Vec<Pin<Box<dyn Future<Output = Got> + '_>>> = asks
            .iter()
            .zip(statements)
            .map(|(ask, statement)| {
                let client = Arc::clone(&self.client);
                let request: Pin<Box<dyn Future<Output = Got>>> = match *ask {
                    Ask::Simple(sql) => Box::pin(async move {
                        Got::Answer(Answer::Simple(client.simple_query(sql).await))
                    }),
                    Ask::Typed(sql, params) => Box::pin(async move {
                        Got::Answer(Answer::Rows(client.query_typed(sql, params).await))
                    }),
                    Ask::Prepared(_, params) => Box::pin(async move {
                        let statement = statement.expect("prepared above");
                        Got::Answer(Answer::Rows(client.query(&statement, params).await))
                    }),
                    Ask::Prepare(sql) => Box::pin(async move {
                        Got::Statement(sql.to_owned(), client.prepare(sql).await)
                    }),
                };
                request
            })
            .collect();
        let got = self.wait(async { Ok(futures_util::future::join_all(requests).await) })?;
        let mut answers = Vec::with_capacity(got.len());
        for got in got {
            answers.push(match got {
                Got::Answer(answer) => answer,
                Got::Statement(sql, statement) => {
                    if let Ok(statement) = statement {
                        self.statements.insert(sql, statement);
                    }
                    Answer::Prepared
                }
            });
        }
        Ok(answers)
    }

    /// Statements without parameters (`BEGIN`, `COMMIT`), in one round trip.
    pub fn batch_execute(&mut self, sql: &str) -> Result<(), Error> {
        let client = Arc::clone(&self.client);
        let request = client.batch_execute(sql);
        self.wait(request)
    }

    /// Statements without parameters, with the rows they return as text.
    pub fn simple_query(&mut self, sql: &str) -> Result<Vec<SimpleQueryMessage>, Error> {
        let client = Arc::clone(&self.client);
        let request = client.simple_query(sql);
        self.wait(request)
    }

    pub fn is_closed(&self) -> bool {
        self.broken || self.client.is_closed()
    }

    /// [`wait_within`] this connection's deadline; a wait that runs out
    /// breaks it.
    fn wait<T>(&mut self, request: impl Future<Output = Result<T, Error>>) -> Result<T, Error> {
        wait_within(
            &self.runtime,
            &mut self.driver,
            self.deadline,
            &mut self.broken,
            request,
        )
    }
}

/// Round trips to the database and those that failed, since the process
/// started (for the team server's metrics).
static ROUND_TRIPS: AtomicU64 = AtomicU64::new(0);
static FAILED: AtomicU64 = AtomicU64::new(0);

/// Round trips made so far in this process, and how many of them failed.
#[cfg(feature = "server")]
pub fn round_trips() -> (u64, u64) {
    (
        ROUND_TRIPS.load(Ordering::Relaxed),
        FAILED.load(Ordering::Relaxed),
    )
}

/// Runs `request` to its end, driving the connection meanwhile: polling
/// for [`SPIN`], then sleeping until the socket wakes it.
fn wait_within<T>(
    runtime: &Runtime,
    driver: &mut Driver,
    deadline: Duration,
    broken: &mut bool,
    request: impl Future<Output = Result<T, Error>>,
) -> Result<T, Error> {
    ROUND_TRIPS.fetch_add(1, Ordering::Relaxed);
    let answer =
        runtime.block_on(async { tokio::time::timeout(deadline, wait_for(driver, request)).await });
    let answer = answer.unwrap_or_else(|_| {
        *broken = true;
        Err(Error::__private_api_timeout())
    });
    if answer.is_err() {
        FAILED.fetch_add(1, Ordering::Relaxed);
    }
    answer
}

async fn wait_for<T>(
    driver: &mut Driver,
    request: impl Future<Output = Result<T, Error>>,
) -> Result<T, Error> {
    {
        let mut request = pin!(request);
        let started = Instant::now();
        loop {
            let spinning = started.elapsed() < SPIN;
            let polled = poll_fn(|cx| {
                if let Poll::Ready(answer) = request.as_mut().poll(cx) {
                    return Poll::Ready(Some(answer));
                }
                // Notices and notifications are not memcap's business here;
                // a closed connection fails the request on its next poll.
                while let Poll::Ready(Some(message)) = driver(cx) {
                    if let Err(e) = message {
                        return Poll::Ready(Some(Err(e)));
                    }
                }
                if spinning {
                    Poll::Ready(None)
                } else {
                    Poll::Pending
                }
            })
            .await;
            match polled {
                Some(answer) => return answer,
                // Lets the runtime look at the socket without sleeping.
                None => tokio::task::yield_now().await,
            }
        }
    }
}
