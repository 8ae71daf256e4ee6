//! The lockfile holds no version with a known sandbox advisory: wasmtime and
//! wasmtime-wasi 48.0.8 (the 2026-09 fixes are in 48.0.3 and later) and
//! cap-primitives 4.0.3 or later (4.0.2's manual resolver followed a symlink
//! out of the root through a trailing slash).

fn locked_versions(name: &str) -> Vec<(u64, u64, u64)> {
    let lock =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../Cargo.lock")).unwrap();
    lock.split("[[package]]")
        .filter(|p| p.lines().any(|l| l == format!("name = \"{name}\"")))
        .map(|p| {
            let v = p
                .lines()
                .find_map(|l| l.strip_prefix("version = \""))
                .unwrap();
            let mut parts = v
                .trim_end_matches('"')
                .split('.')
                .map(|n| n.parse::<u64>().unwrap());
            (
                parts.next().unwrap(),
                parts.next().unwrap(),
                parts.next().unwrap(),
            )
        })
        .collect()
}

#[test]
fn sandbox_crates_are_patched_versions() {
    for name in ["wasmtime", "wasmtime-wasi"] {
        assert_eq!(locked_versions(name), [(48, 0, 8)], "{name}");
    }
    let cap = locked_versions("cap-primitives");
    assert!(
        !cap.is_empty() && cap.iter().all(|&v| v >= (4, 0, 3)),
        "cap-primitives {cap:?}"
    );
}
