//! The history a path's changes are kept in: a shared directory's own
//! (`shared/NAME/...`, reached through a shared grant), where a change
//! made through the grant is recorded, or else the caller's. Reads of a
//! shared path go to that store, so its versions are seen where they are.

use super::version::Version;
use crate::error::Result;
use crate::io::Io;
use crate::storage::Grant;
use crate::storage::within::Within;
use crate::vpath::MemPath;

/// The shared directory (`shared/NAME`) whose own store holds `key` (a
/// root-relative path), if one does.
pub fn store_of(io: &Io, key: &str) -> Option<String> {
    if io.fs.grant(key) != Grant::Shared {
        return None;
    }
    let mut parts = key.splitn(3, '/');
    Some(format!("{}/{}", parts.next()?, parts.next()?))
}

/// Runs `f` against the store that keeps `path`'s history, with the path
/// as that store names it.
pub fn reading<T>(
    io: &Io,
    path: &MemPath,
    f: impl FnOnce(&Io, &MemPath) -> Result<T>,
) -> Result<T> {
    let key = path.key();
    let Some(dir) = store_of(io, &key) else {
        return f(io, path);
    };
    let inside = key.strip_prefix(&dir).unwrap_or_default();
    let inner = MemPath::parse(&format!("/memories{inside}"))?;
    let view = Within::new(io.fs, &dir);
    let own = Io::with_warm(&view, io.env, io.warm(), None);
    f(&own, &inner)
}

/// As [`reading`], for versions: their paths as the caller names them.
pub fn versions(
    io: &Io,
    path: &MemPath,
    f: impl FnOnce(&Io, &MemPath) -> Result<Vec<Version>>,
) -> Result<Vec<Version>> {
    let dir = store_of(io, &path.key());
    let mut versions = reading(io, path, f)?;
    for v in &mut versions {
        named_outside(dir.as_deref(), v);
    }
    Ok(versions)
}

/// As [`reading`], for one version and what goes with it.
pub fn version<T>(
    io: &Io,
    path: &MemPath,
    f: impl FnOnce(&Io, &MemPath) -> Result<(Version, T)>,
) -> Result<(Version, T)> {
    let dir = store_of(io, &path.key());
    let (mut v, with) = reading(io, path, f)?;
    named_outside(dir.as_deref(), &mut v);
    Ok((v, with))
}

/// `v`'s paths as the caller names them: under `dir`, the shared
/// directory whose store recorded it (none: the caller's own).
fn named_outside(dir: Option<&str>, v: &mut Version) {
    let Some(dir) = dir else {
        return;
    };
    v.path = under(dir, &v.path);
    v.from = v.from.as_deref().map(|from| under(dir, from));
}

/// `path` of the shared store, as the caller names it.
fn under(dir: &str, path: &str) -> String {
    format!("{dir}/{path}").trim_end_matches('/').to_owned()
}
