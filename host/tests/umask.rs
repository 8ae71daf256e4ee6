//! The process umask: the library leaves it alone unless asked (it belongs
//! to the whole embedding program); asked, it adds 0o077 and never removes a
//! bit. Its own test binary, since the umask is shared by every thread.

use memcap::Memory;
use rustix::fs::Mode;
use rustix::process::umask;

fn current_umask() -> u32 {
    let now = umask(Mode::from_raw_mode(0o022));
    umask(now);
    now.bits()
}

#[test]
fn the_umask_changes_only_when_asked() {
    use std::os::unix::fs::PermissionsExt;
    umask(Mode::from_raw_mode(0o002));
    let dir = tempfile::tempdir().unwrap();

    let memory = Memory::open(dir.path().join("shared")).unwrap();
    assert_eq!(current_umask(), 0o002);
    memory.create("/memories/a.md", "a").unwrap();
    let mode = |rel: &str| {
        std::fs::metadata(dir.path().join(rel))
            .unwrap()
            .permissions()
            .mode()
            & 0o777
    };
    // The files follow the program's umask; the store itself is private.
    assert_eq!(mode("shared/a.md"), 0o664);
    assert_eq!(mode("shared"), 0o700);

    let private = Memory::builder(dir.path().join("private"))
        .private_umask(true)
        .open()
        .unwrap();
    assert_eq!(current_umask(), 0o077);
    private.create("/memories/b.md", "b").unwrap();
    assert_eq!(mode("private/b.md"), 0o600);
}
