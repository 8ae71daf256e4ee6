//! Any text as a `call` input: parsing never panics, and every refusal is an
//! input error with a message.
#![no_main]

use libfuzzer_sys::fuzz_target;
use memcap_core::command::parse;
use memcap_core::error::ErrorKind;

fuzz_target!(|data: &[u8]| {
    let Ok(input) = std::str::from_utf8(data) else {
        return;
    };
    if let Err(e) = parse(input) {
        assert_eq!(e.kind(), ErrorKind::InvalidInput);
        assert!(!e.to_string().is_empty());
    }
});
