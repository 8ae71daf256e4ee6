//! Hearing other hosts' commits: a connection of its own that `LISTEN`s on
//! the channel every committing write notifies (with its namespace's id),
//! so a long-lived host can catch up between calls instead of in them.

use std::time::Duration;

use postgres::Client;
use postgres::fallible_iterator::FallibleIterator;

use super::url::Url;

/// The channel committing writes notify, with the namespace id as payload.
pub(crate) const CHANNEL: &str = "memcap";

/// Waits for commits to some namespaces; see [`CommitListener::wait`].
pub struct CommitListener {
    url: Url,
    /// The namespaces that matter; `None`: any (a namespace not made yet
    /// has no id to listen for).
    ids: Option<Vec<i64>>,
    client: Option<Client>,
}

impl CommitListener {
    #[cfg(feature = "mcp")]
    pub(crate) fn new(url: Url, ids: Option<Vec<i64>>) -> Self {
        Self {
            url,
            ids,
            client: None,
        }
    }

    /// Waits up to `timeout` for a commit to one of the namespaces:
    /// `Ok(true)` when one came (or the connection was made anew, when
    /// some may have been missed), `Ok(false)` when none did. An error
    /// means the database could not be reached; the next wait tries again.
    pub fn wait(&mut self, timeout: Duration) -> Result<bool, postgres::Error> {
        if self.client.as_ref().is_none_or(Client::is_closed) {
            self.client = None;
            let mut client = self
                .url
                .connect_blocking(timeout.max(Duration::from_secs(1)))?;
            client.batch_execute(&format!("LISTEN {CHANNEL}"))?;
            self.client = Some(client);
            // Commits made while nobody listened: catch up at once.
            return Ok(true);
        }
        let client = self.client.as_mut().expect("connected above");
        let mut heard = false;
        {
            let mut notifications = client.notifications();
            let mut next = notifications.timeout_iter(timeout).next()?;
            // What came at once is taken together; the rest is what the
            // connection has buffered, so the loop ends.
            let mut more = notifications.iter();
            while let Some(notification) = next {
                let id = notification.payload().parse::<i64>().ok();
                heard |= match (&self.ids, id) {
                    (None, _) => true,
                    (Some(ids), Some(id)) => ids.contains(&id),
                    (Some(_), None) => false,
                };
                next = more.next()?;
            }
        }
        if client.is_closed() {
            self.client = None;
        }
        Ok(heard)
    }
}
