//! Any text as a memory path: a path that parses stays inside the root (no
//! `..`, no empty or reserved component) and reads back as itself; one
//! accepted for a new name holds no control or invisible character.
#![no_main]

use libfuzzer_sys::fuzz_target;
use memcap_core::text::unsafe_char;
use memcap_core::vpath::MemPath;

fuzz_target!(|data: &[u8]| {
    let Ok(input) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(path) = MemPath::parse(input) else {
        return;
    };
    let relative = path.relative();
    assert!(!relative.starts_with('/'), "{relative:?}");
    if !path.is_root() {
        for part in relative.split('/') {
            assert!(!matches!(part, "" | "." | ".."), "{relative:?}");
        }
        assert_ne!(relative.split('/').next(), Some(".memcap"));
    }
    assert!(path.display().starts_with("/memories"));
    let again = MemPath::parse(&path.display()).expect("a displayed path parses");
    assert_eq!(again, path);
    if path.check_new(input).is_ok() {
        assert_eq!(unsafe_char(&relative), None);
    }
});
