//! A store's first round trip: the connection's setting, the schema check,
//! the namespaces' ids and the statements a first call uses, sent together.
//! A one-shot process (the CLI) opens a store for a single call: each of
//! these alone cost a round trip, and on a server process just started
//! each waits on that process's catalog too.

use std::sync::Arc;
use std::time::Duration;

use postgres::types::{ToSql, Type};
use tokio::runtime::Runtime;

use super::conn::{Answer, Ask, Conn};
use super::{OpenDbError, Url, pager, rows, schema};

/// Connects, checks (or makes) the schema and finds the namespaces named
/// `names`: their ids, `None` for one not made yet.
pub(crate) fn connect(
    url: &Url,
    names: &[String],
    call_timeout: Duration,
    runtime: Arc<Runtime>,
) -> Result<(Conn, Vec<Option<i64>>), OpenDbError> {
    let params: Vec<[(&(dyn ToSql + Sync), Type); 1]> = names
        .iter()
        .map(|name| [(name as &(dyn ToSql + Sync), Type::TEXT)])
        .collect();
    let versions = rows::versions_sql(names.len());
    let mut asks = vec![Ask::Simple(schema::CHECK)];
    asks.extend(params.iter().map(|name| Ask::Typed(rows::FIND, name)));
    // What a first call reads with: its version check, the rows at the
    // paths it names and their pages.
    asks.extend([
        Ask::Prepare(&versions),
        Ask::Prepare(pager::ROWS_AT),
        Ask::Prepare(pager::PAGES),
    ]);
    let (mut client, answers) = url
        .connect_asking(call_timeout, runtime, &asks)
        .map_err(OpenDbError::connect)?;
    let current = matches!(&answers[0], Answer::Simple(Ok(answer)) if schema::current(answer));
    schema::ensure(&mut client, current)?;
    let mut ids = Vec::with_capacity(names.len());
    for (name, answer) in names.iter().zip(&answers[1..]) {
        ids.push(match answer {
            // Asked before the schema was known to be there: an answer
            // only when it was.
            Answer::Rows(Ok(found)) if current => found.first().map(|row| row.get(0)),
            _ => rows::find(&mut client, name).map_err(OpenDbError::query)?,
        });
    }
    Ok((client, ids))
}
