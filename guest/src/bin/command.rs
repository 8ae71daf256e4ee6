//! The command build: one `tool_use` input JSON per line on stdin, one
//! `{"content": …, "is_error": …}` line per input on stdout, in order.
//! Run it with `wasmtime run --dir ./memories::/memories memcap-command.wasm`.

use memcap_core::lines::{DEFAULT_MAX_INPUT_BYTES, serve};

fn main() {
    let stdin = std::io::stdin().lock();
    let stdout = std::io::stdout().lock();
    // Stops when stdin ends or stdout is closed: nobody is left to answer.
    let _ = serve(stdin, stdout, DEFAULT_MAX_INPUT_BYTES, |line| match line {
        Ok(input) => memcap::call(input),
        Err(e) => Err::<String, _>(e).into(),
    });
}
