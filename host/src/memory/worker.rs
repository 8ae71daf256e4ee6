//! The thread a store's guest calls run on, so a call's time limit holds
//! even while the guest waits in a host call that does not return (a file
//! system that stopped answering): the epoch deadline stops a guest that
//! computes, but only the caller's own timed wait stops one that waits.
//! A call still running when its caller stops waiting is kept as
//! [`Stuck`], for the store to hold its lock until it ends.
//!
//! Each side first waits for the other by polling (yielding the CPU to any
//! other thread between polls) before it sleeps: waking a sleeping thread
//! costs tens of microseconds on a virtual machine whose CPU went idle,
//! measured at 60–100 µs a call, more than half of a warm `create`.

use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, TryRecvError};
use std::time::{Duration, Instant};

/// The stack of the thread the guest runs on: the main thread's, as the
/// guest ran there before (wasm frames and the host's beneath them).
const STACK_BYTES: usize = 8 << 20;

/// How long a caller polls for its answer before it sleeps: most warm
/// calls end within it.
const CALLER_POLLS: Duration = Duration::from_micros(300);

/// How long the thread polls for the next job after one ends before it
/// sleeps: a program's calls often come one right after another.
const WORKER_POLLS: Duration = Duration::from_micros(50);

type Job = Box<dyn FnOnce() + Send>;

/// One thread, started on first use and again after a call was left
/// running on the last one.
#[derive(Default)]
pub(super) struct Worker {
    jobs: Option<Sender<Job>>,
}

/// How a job came out.
pub(super) enum Ran<T> {
    Done(T),
    /// Still running when the wait ended; it goes on, on its own thread.
    Late(Stuck),
    /// It panicked, or no thread could be started.
    Lost,
}

/// A job left running; its thread ends when it does.
pub(super) struct Stuck {
    ended: Box<dyn FnMut(Duration) -> bool + Send>,
}

impl Stuck {
    /// Waits at most `wait` for the job to end; whether it has.
    pub fn wait(&mut self, wait: Duration) -> bool {
        (self.ended)(wait)
    }
}

impl Worker {
    /// Runs `job` on the worker thread and waits at most `wait` for it;
    /// `lasting` runs if the wait outlasts its polling, before it sleeps.
    pub fn run<T: Send + 'static>(
        &mut self,
        wait: Duration,
        lasting: impl FnOnce(),
        job: impl FnOnce() -> T + Send + 'static,
    ) -> Ran<T> {
        let (answer, answered) = mpsc::sync_channel(1);
        let job: Job = Box::new(move || {
            let _ = answer.send(job());
        });
        if self.send(job).is_err() {
            return Ran::Lost;
        }
        match receive(&answered, CALLER_POLLS.min(wait), wait, lasting) {
            Ok(done) => Ran::Done(done),
            Err(RecvTimeoutError::Timeout) => {
                // The thread is busy for who knows how long: the next job
                // gets a new one, and this one ends with its job.
                self.jobs = None;
                Ran::Late(Stuck {
                    ended: Box::new(move |wait| ended(&answered, wait)),
                })
            }
            Err(RecvTimeoutError::Disconnected) => {
                self.jobs = None;
                Ran::Lost
            }
        }
    }

    fn send(&mut self, job: Job) -> std::io::Result<()> {
        let job = match &self.jobs {
            Some(jobs) => match jobs.send(job) {
                Ok(()) => return Ok(()),
                // Its thread is gone (a panic): start another.
                Err(mpsc::SendError(job)) => job,
            },
            None => job,
        };
        let (jobs, taken) = mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("memcap-guest".into())
            .stack_size(STACK_BYTES)
            .spawn(move || {
                // wasmtime-wasi's synchronous calls run their futures in the
                // ambient runtime when there is one: this thread's own, on
                // the thread itself (files are read inline), so no pool of
                // worker threads is started for them.
                let runtime = tokio::runtime::Builder::new_current_thread().build();
                let _entered = runtime.as_ref().ok().map(|r| r.enter());
                while let Ok(job) = receive(&taken, WORKER_POLLS, Duration::MAX, || ()) {
                    job();
                }
            })?;
        jobs.send(job).map_err(|_| std::io::ErrorKind::BrokenPipe)?;
        self.jobs = Some(jobs);
        Ok(())
    }
}

/// The next message, polled for during `polls` (yielding between polls),
/// then, after `lasting`, slept for until `wait` has passed since the start.
fn receive<T>(
    from: &Receiver<T>,
    polls: Duration,
    wait: Duration,
    lasting: impl FnOnce(),
) -> Result<T, RecvTimeoutError> {
    let start = Instant::now();
    loop {
        match from.try_recv() {
            Ok(message) => return Ok(message),
            Err(TryRecvError::Disconnected) => return Err(RecvTimeoutError::Disconnected),
            Err(TryRecvError::Empty) if start.elapsed() < polls => std::thread::yield_now(),
            Err(TryRecvError::Empty) => break,
        }
    }
    lasting();
    // A wait too long for the clock to hold is a wait without end.
    from.recv_timeout(wait.saturating_sub(start.elapsed()))
}

fn ended<T>(answered: &Receiver<T>, wait: Duration) -> bool {
    !matches!(answered.recv_timeout(wait), Err(RecvTimeoutError::Timeout))
}
