//! Any text as a note body: the graph parser never panics, and each
//! observation and relation it finds is text the body holds, on a line the
//! body has.
#![no_main]

use libfuzzer_sys::fuzz_target;
use memcap_core::graph::parse;

fuzz_target!(|data: &[u8]| {
    let body = String::from_utf8_lossy(data);
    let parsed = parse(&body);
    let lines = body.split(['\n', '\r']).count() as u32;
    for o in &parsed.observations {
        assert!(!o.content.is_empty());
        assert!((1..=lines).contains(&o.line), "{o:?}");
    }
    for r in &parsed.relations {
        assert!(!r.target.is_empty() && !r.kind.is_empty(), "{r:?}");
        assert!((1..=lines).contains(&r.line), "{r:?}");
    }
});
