//! `memcap token create | list | revoke`: the bearer tokens a team server
//! asks for. A token is printed once, alone on the last line; the store
//! keeps only its hash.

use std::process::ExitCode;

use clap::Subcommand;
use memcap::tokens::{self, Access, SharedAccess, TokenRecord};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use super::StoreSpec;

#[derive(Subcommand)]
pub enum TokenAction {
    /// Make a token for --namespace (with any --shared NAME[:ro] and
    /// --read-only) and print it once, alone on the last line.
    Create {
        /// A name to tell the token by in `token list` and the server's log.
        #[arg(long, default_value = "")]
        label: String,
        /// How long the token works: 90d, 12h, 30m or 45s (default: until revoked).
        #[arg(long, value_parser = tokens::parse_lifetime)]
        expires: Option<i64>,
    },
    /// List the tokens: id, label, access, when made, last used and expiry (never the token).
    List,
    /// Revoke a token by its id (from `token list`): servers refuse it from their next request.
    Revoke { id: String },
}

/// A `--shared` grant as a token takes it: a namespace of the same store.
pub struct SharedGrant {
    pub name: String,
    pub target: String,
    pub read_only: bool,
}

/// What `token create` grants.
pub struct Grants<'a> {
    pub namespace: Option<&'a str>,
    pub shared: Vec<SharedGrant>,
    pub read_only: bool,
    pub extra: bool,
}

pub fn run(spec: &StoreSpec, action: &TokenAction, grants: Grants<'_>) -> anyhow::Result<ExitCode> {
    let store = spec.location.tokens()?;
    match action {
        TokenAction::Create { label, expires } => {
            let Some(namespace) = grants.namespace else {
                anyhow::bail!("a token reaches one namespace: give it with --namespace NAME");
            };
            if grants.extra {
                anyhow::bail!(
                    "a token grants namespaces only: --extra is for a server without tokens"
                );
            }
            spec.location.ensure_namespace(namespace)?;
            let mut shared = Vec::new();
            for grant in grants.shared {
                memcap::namespace::check("shared directory name", &grant.name)?;
                spec.location.ensure_namespace(&grant.target)?;
                shared.push(SharedAccess {
                    name: grant.name,
                    target: grant.target,
                    read_only: grant.read_only,
                });
            }
            let access = Access::new(namespace, shared, grants.read_only);
            let expires = expires.map(|secs| tokens::now() + secs);
            let (record, token) = tokens::mint(access, label.clone(), expires)?;
            store.add(&record)?;
            println!(
                "Token {} for {}{}{}. It is shown once: keep it secret.",
                record.id,
                record.access.describe(),
                if label.is_empty() {
                    String::new()
                } else {
                    format!(", labelled {label:?}")
                },
                match record.expires {
                    Some(at) => format!(", until {}", when(at)),
                    None => String::new(),
                },
            );
            println!("{token}");
            Ok(ExitCode::SUCCESS)
        }
        TokenAction::List => {
            let records = store.all()?;
            if records.is_empty() {
                println!("No tokens. Make one with: memcap token create --namespace NAME");
                return Ok(ExitCode::SUCCESS);
            }
            println!(
                "ID            LABEL         ACCESS                          CREATED               LAST USED             EXPIRES               STATUS"
            );
            for record in &records {
                println!(
                    "{:<13} {:<13} {:<31} {:<21} {:<21} {:<21} {}",
                    record.id,
                    record.label,
                    record.access.describe(),
                    when(record.created),
                    record.last_used.map_or_else(|| "never".to_owned(), when),
                    record.expires.map_or_else(|| "never".to_owned(), when),
                    status(record),
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        TokenAction::Revoke { id } => {
            if store.revoke(id, tokens::now())? {
                println!("Revoked token {id}: servers refuse it from their next request.");
                Ok(ExitCode::SUCCESS)
            } else {
                eprintln!("No token has the id {id:?}: see memcap token list.");
                Ok(ExitCode::from(1))
            }
        }
    }
}

fn status(record: &TokenRecord) -> &'static str {
    if record.revoked.is_some() {
        "revoked"
    } else if record.expires.is_some_and(|at| at <= tokens::now()) {
        "expired"
    } else {
        "active"
    }
}

/// A time as `2026-11-26T12:00:00Z`.
fn when(secs: i64) -> String {
    OffsetDateTime::from_unix_timestamp(secs)
        .ok()
        .and_then(|t| t.format(&Rfc3339).ok())
        .unwrap_or_else(|| secs.to_string())
}
