//! Any text as a note: reading it never panics, and every field comes back
//! as one line of bounded length without control or invisible characters.
#![no_main]

use libfuzzer_sys::fuzz_target;
use memcap_core::notes::frontmatter::{MAX_DESCRIPTION_CHARS, MAX_NAME_CHARS, read};
use memcap_core::text::unsafe_char;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let meta = read(&text, "note.md");
    assert!(meta.name.chars().count() <= MAX_NAME_CHARS + 1);
    assert!(meta.description.chars().count() <= MAX_DESCRIPTION_CHARS + 1);
    assert!(meta.tags.len() <= 32);
    let short = meta
        .tags
        .iter()
        .chain(meta.updated.as_ref())
        .chain(meta.permalink.as_ref())
        .chain(meta.declared_type.as_ref());
    for field in short {
        assert!(field.chars().count() <= 101, "{field:?}");
    }
    let every = [&meta.name, &meta.description]
        .into_iter()
        .chain(&meta.tags)
        .chain(meta.updated.as_ref())
        .chain(meta.permalink.as_ref())
        .chain(meta.declared_type.as_ref())
        .chain(meta.problem.as_ref());
    for field in every {
        assert_eq!(unsafe_char(field), None, "{field:?}");
        assert!(!field.contains('\n'), "{field:?}");
    }
});
