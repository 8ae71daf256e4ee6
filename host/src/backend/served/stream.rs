//! The output stream `write-via-stream` and `append-via-stream` hand out:
//! each write lands in the tree at once, so `flush` has nothing left to do
//! and no error can be lost when the stream is dropped.

use wasmtime_wasi::p2::{OutputStream, Pollable, StreamError, StreamResult};

use super::tree::Ino;
use super::{CodeError, Fs};

/// How much one `write` may carry: what wasmtime-wasi's file streams allow.
const WRITE_BUDGET: usize = 1 << 20;

pub(crate) struct Writer {
    fs: Fs,
    mount: usize,
    ino: Ino,
    /// Where the next write goes; `None` appends.
    offset: Option<u64>,
}

impl Writer {
    pub fn new(fs: Fs, mount: usize, ino: Ino, offset: Option<u64>) -> Self {
        Self {
            fs,
            mount,
            ino,
            offset,
        }
    }
}

#[wasmtime_wasi::async_trait]
impl Pollable for Writer {
    async fn ready(&mut self) {}
}

impl OutputStream for Writer {
    fn write(&mut self, bytes: bytes::Bytes) -> StreamResult<()> {
        let mut state = self.fs.lock();
        let max = state.max_file_bytes;
        let failed = |code| StreamError::LastOperationFailed(CodeError(code).into());
        let size = state.size(self.mount, self.ino).map_err(failed)?;
        let offset = self.offset.unwrap_or(size);
        let end = offset.saturating_add(bytes.len() as u64);
        let tree = state
            .pages(self.mount, self.ino, offset.min(size), end)
            .map_err(failed)?;
        tree.write(self.ino, offset, &bytes, max).map_err(failed)?;
        if let Some(at) = &mut self.offset {
            *at += bytes.len() as u64;
        }
        Ok(())
    }

    fn flush(&mut self) -> StreamResult<()> {
        Ok(())
    }

    fn check_write(&mut self) -> StreamResult<usize> {
        Ok(WRITE_BUDGET)
    }
}
