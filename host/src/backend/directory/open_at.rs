//! `wasi:filesystem`'s `open-at` for host directories, in place of
//! wasmtime-wasi's: the same sandboxed open (cap-primitives, beneath the
//! preopen), made non-blocking, and only a regular file or a directory is
//! handed to the guest. wasmtime-wasi opens blocking, so a FIFO put where a
//! note was (or the journal, a chat file, a file of a shared or extra
//! directory) blocked the call inside the open, beyond the reach of the
//! epoch deadline and holding the store's lock, for every process on the
//! store. Linked over wasmtime-wasi's own definition (`allow_shadowing`);
//! every other file-system call stays wasmtime-wasi's.

use std::path::Path;

use cap_fs_ext::{FollowSymlinks, OpenOptionsFollowExt};
use cap_primitives::fs::{OpenOptions, OpenOptionsExt};
use rustix::fs::OFlags;
use wasmtime::component::{Linker, Resource, ResourceTable};
use wasmtime_wasi::filesystem::{Descriptor, Dir, File};
use wasmtime_wasi::p2::bindings::filesystem::types::{
    DescriptorFlags, ErrorCode, OpenFlags, PathFlags,
};
use wasmtime_wasi::{OpenMode, WasiView};

/// The interface wasmtime-wasi 48 links `open-at` under (`wasi:filesystem`
/// 0.2.12; guests of any 0.2 version are matched to it).
const INTERFACE: &str = "wasi:filesystem/types@0.2.12";

/// Links this `open-at` over the one `wasi_link::add_host_filesystem`
/// linked. Descriptors are made to block the calling thread, as
/// `Memory` configures every context (`allow_blocking_current_thread`).
pub(crate) fn shadow<T: WasiView + 'static>(linker: &mut Linker<T>) -> wasmtime::Result<()> {
    linker.allow_shadowing(true);
    linker.instance(INTERFACE)?.func_wrap(
        "[method]descriptor.open-at",
        |mut store: wasmtime::StoreContextMut<'_, T>,
         (fd, path_flags, path, oflags, flags): (
            Resource<Descriptor>,
            PathFlags,
            String,
            OpenFlags,
            DescriptorFlags,
        )| {
            let table = store.data_mut().ctx().table;
            Ok((open_at(table, &fd, path_flags, &path, oflags, flags)?,))
        },
    )?;
    linker.allow_shadowing(false);
    Ok(())
}

/// A failure the guest hears as an error code, or a trap (a bad handle).
type Opened = Result<Resource<Descriptor>, ErrorCode>;

fn open_at(
    table: &mut ResourceTable,
    fd: &Resource<Descriptor>,
    path_flags: PathFlags,
    path: &str,
    oflags: OpenFlags,
    flags: DescriptorFlags,
) -> wasmtime::Result<Opened> {
    let dir = match table.get(fd)? {
        Descriptor::Dir(dir) => dir.clone(),
        Descriptor::File(_) => return Ok(Err(ErrorCode::NotDirectory)),
    };
    let (opts, mode) = match options(&dir, path_flags, oflags, flags) {
        Ok(options) => options,
        Err(code) => return Ok(Err(code)),
    };
    let opened = match open(&dir, path, &opts, oflags, mode) {
        Ok(opened) => opened,
        Err(code) => return Ok(Err(code)),
    };
    Ok(Ok(table.push(opened)?))
}

/// The open options `open-at` asks for, with wasmtime-wasi's rules (a
/// create or truncate opens for writing, anything not opened for writing is
/// opened for reading, and nothing writes through a read-only preopen), and
/// `O_NONBLOCK`, so opening a FIFO or a device never waits.
fn options(
    dir: &Dir,
    path_flags: PathFlags,
    oflags: OpenFlags,
    flags: DescriptorFlags,
) -> Result<(OpenOptions, OpenMode), ErrorCode> {
    let mut opts = OpenOptions::new();
    let mut mode = OpenMode::empty();
    if oflags.contains(OpenFlags::CREATE) {
        if oflags.contains(OpenFlags::EXCLUSIVE) {
            opts.create_new(true);
        } else {
            opts.create(true);
        }
    }
    if oflags.intersects(OpenFlags::CREATE | OpenFlags::TRUNCATE)
        || flags.contains(DescriptorFlags::WRITE)
    {
        opts.write(true);
        mode |= OpenMode::WRITE;
    }
    opts.truncate(oflags.contains(OpenFlags::TRUNCATE));
    if flags.contains(DescriptorFlags::READ) || !mode.contains(OpenMode::WRITE) {
        opts.read(true);
        mode |= OpenMode::READ;
    }
    opts.follow(if path_flags.contains(PathFlags::SYMLINK_FOLLOW) {
        FollowSymlinks::Yes
    } else {
        FollowSymlinks::No
    });
    opts.custom_flags((OFlags::NONBLOCK | OFlags::NOCTTY).bits() as i32);
    if flags.intersects(
        DescriptorFlags::FILE_INTEGRITY_SYNC
            | DescriptorFlags::DATA_INTEGRITY_SYNC
            | DescriptorFlags::REQUESTED_WRITE_SYNC,
    ) {
        return Err(ErrorCode::Unsupported);
    }
    if oflags.contains(OpenFlags::DIRECTORY)
        && oflags.intersects(OpenFlags::CREATE | OpenFlags::EXCLUSIVE | OpenFlags::TRUNCATE)
    {
        return Err(ErrorCode::Invalid);
    }
    if dir.perms.write_not_permitted() && mode.contains(OpenMode::WRITE) {
        return Err(ErrorCode::NotPermitted);
    }
    Ok((opts, mode))
}

/// Opens `path` beneath `dir` and checks what the opened descriptor is: a
/// directory or a regular file (then made blocking again) is handed out;
/// anything else is closed unread and refused as `unsupported`.
fn open(
    dir: &Dir,
    path: &str,
    opts: &OpenOptions,
    oflags: OpenFlags,
    mode: OpenMode,
) -> Result<Descriptor, ErrorCode> {
    let file = cap_primitives::fs::open(&dir.dir, Path::new(path), opts)?;
    let kind = file.metadata()?.file_type();
    if kind.is_dir() {
        return Ok(Descriptor::Dir(Dir::new(file, dir.perms, mode, true)));
    }
    if oflags.contains(OpenFlags::DIRECTORY) {
        return Err(ErrorCode::NotDirectory);
    }
    if !kind.is_file() {
        return Err(ErrorCode::Unsupported);
    }
    // The only status flag `options` sets is NONBLOCK (no O_APPEND, and
    // F_SETFL keeps the access mode): clearing them all needs no F_GETFL.
    rustix::fs::fcntl_setfl(&file, OFlags::empty()).map_err(std::io::Error::from)?;
    Ok(Descriptor::File(File::new(file, dir.perms, mode, true)))
}
