//! The `wasi:filesystem/types` and `preopens` host functions over the
//! mounted trees, with wasmtime-wasi's semantics where memcap depends on
//! them: a read reports the end only on a zero-byte read, a directory's
//! size is 4096, `metadata-hash` is the file's identity (inode and mount),
//! and a mount granted read-only refuses every change as not permitted.

use wasmtime::component::Resource;
use wasmtime_wasi::p2::bindings::clocks::wall_clock::Datetime;
use wasmtime_wasi::p2::bindings::io::streams::{InputStream, OutputStream};
use wasmtime_wasi::p2::pipe::MemoryInputPipe;

use super::bindings::wasi::filesystem::preopens;
use super::bindings::wasi::filesystem::types::{
    self, Advice, DescriptorFlags, DescriptorStat, DescriptorType, DirectoryEntry,
    MetadataHashValue, NewTimestamp, OpenFlags, PathFlags,
};
use super::stream::Writer;
use super::tree::{Body, Ino, Nanos, ROOT_INO};
use super::{Code, CodeError, Descriptor, EntryStream, FsError, FsView};

type FsResult<T> = Result<T, FsError>;

fn datetime(t: Nanos) -> Datetime {
    let t = t.max(0) as u128;
    Datetime {
        seconds: (t / 1_000_000_000) as u64,
        nanoseconds: (t % 1_000_000_000) as u32,
    }
}

impl FsView<'_> {
    fn descriptor(&self, fd: &Resource<Descriptor>) -> FsResult<(usize, Ino, DescriptorFlags)> {
        let d = self.table.get(fd)?;
        Ok((d.mount, d.ino, d.flags))
    }

    /// The directory `fd` names, checked to allow changes when `mutate`.
    fn dir(&self, fd: &Resource<Descriptor>, mutate: bool) -> FsResult<(usize, Ino)> {
        let (mount, ino, flags) = self.descriptor(fd)?;
        let state = self.fs.lock();
        let node = state.mounts[mount]
            .tree
            .node(ino)
            .ok_or(Code::BadDescriptor)?;
        if !node.is_dir() {
            return Err(Code::NotDirectory.into());
        }
        if mutate
            && !(flags.contains(DescriptorFlags::MUTATE_DIRECTORY) && state.mounts[mount].writable)
        {
            return Err(Code::NotPermitted.into());
        }
        Ok((mount, ino))
    }

    fn stat_of(&self, mount: usize, ino: Ino) -> FsResult<DescriptorStat> {
        let state = self.fs.lock();
        let node = state.mounts[mount]
            .tree
            .node(ino)
            .ok_or(Code::BadDescriptor)?;
        Ok(DescriptorStat {
            type_: if node.is_dir() {
                DescriptorType::Directory
            } else {
                DescriptorType::RegularFile
            },
            link_count: node.links.len().max(1) as u64,
            size: node.size(),
            data_access_timestamp: Some(datetime(node.mtime)),
            data_modification_timestamp: Some(datetime(node.mtime)),
            status_change_timestamp: Some(datetime(node.ctime)),
        })
    }

    fn hash_of(&self, mount: usize, ino: Ino) -> MetadataHashValue {
        MetadataHashValue {
            lower: ino,
            upper: mount as u64,
        }
    }

    fn resolve(&self, fd: &Resource<Descriptor>, path: &str) -> FsResult<(usize, Ino)> {
        let (mount, base) = self.dir(fd, false)?;
        let mut state = self.fs.lock();
        state.reveal(mount, base, path)?;
        let ino = state.mounts[mount].tree.resolve(base, path)?;
        Ok((mount, ino))
    }

    /// The directory and name the last component of `path` names, for a
    /// change there (`moved`: of a directory, moved or removed).
    fn parent(
        &self,
        fd: &Resource<Descriptor>,
        path: &str,
        moved: bool,
    ) -> FsResult<(usize, Ino, String)> {
        let (mount, base) = self.dir(fd, true)?;
        let mut state = self.fs.lock();
        match state
            .for_change(mount, base, path, moved)?
            .resolve_parent(base, path)?
        {
            (dir, Some(name)) => Ok((mount, dir, name)),
            // `.` or `a/..`: a directory that exists, never a new name.
            (_, None) => Err(Code::Exist.into()),
        }
    }

    fn writer(
        &mut self,
        fd: Resource<Descriptor>,
        offset: Option<u64>,
    ) -> FsResult<Resource<OutputStream>> {
        let (mount, ino, flags) = self.descriptor(&fd)?;
        if !flags.contains(DescriptorFlags::WRITE) {
            return Err(Code::BadDescriptor.into());
        }
        if self.fs.lock().mounts[mount]
            .tree
            .node(ino)
            .is_some_and(|n| n.is_dir())
        {
            return Err(Code::IsDirectory.into());
        }
        let writer: OutputStream = Box::new(Writer::new(self.fs.clone(), mount, ino, offset));
        Ok(self.table.push(writer)?)
    }
}

impl types::Host for FsView<'_> {
    fn convert_error_code(&mut self, err: FsError) -> wasmtime::Result<Code> {
        match err {
            FsError::Code(code) => Ok(code),
            FsError::Trap(trap) => Err(trap),
        }
    }

    fn filesystem_error_code(
        &mut self,
        err: Resource<wasmtime_wasi::p2::bindings::io::error::Error>,
    ) -> wasmtime::Result<Option<Code>> {
        let err = self.table.get(&err)?;
        Ok(err.downcast_ref::<CodeError>().map(|e| e.0))
    }
}

impl types::HostDescriptor for FsView<'_> {
    fn read_via_stream(
        &mut self,
        fd: Resource<Descriptor>,
        offset: u64,
    ) -> FsResult<Resource<InputStream>> {
        let (mount, ino, flags) = self.descriptor(&fd)?;
        if !flags.contains(DescriptorFlags::READ) {
            return Err(Code::BadDescriptor.into());
        }
        let rest = {
            let mut state = self.fs.lock();
            state.range(mount, ino, offset, u64::MAX)?.to_vec()
        };
        let stream: InputStream = Box::new(MemoryInputPipe::new(rest));
        Ok(self.table.push(stream)?)
    }

    fn write_via_stream(
        &mut self,
        fd: Resource<Descriptor>,
        offset: u64,
    ) -> FsResult<Resource<OutputStream>> {
        self.writer(fd, Some(offset))
    }

    fn append_via_stream(&mut self, fd: Resource<Descriptor>) -> FsResult<Resource<OutputStream>> {
        self.writer(fd, None)
    }

    fn advise(
        &mut self,
        fd: Resource<Descriptor>,
        _offset: u64,
        _len: u64,
        _advice: Advice,
    ) -> FsResult<()> {
        self.descriptor(&fd)?;
        Ok(())
    }

    // Durability is the backend's: a call's changes are saved together
    // when it ends, so a sync has nothing to do now.
    fn sync_data(&mut self, fd: Resource<Descriptor>) -> FsResult<()> {
        self.descriptor(&fd)?;
        Ok(())
    }

    fn get_flags(&mut self, fd: Resource<Descriptor>) -> FsResult<DescriptorFlags> {
        Ok(self.descriptor(&fd)?.2)
    }

    fn get_type(&mut self, fd: Resource<Descriptor>) -> FsResult<DescriptorType> {
        let (mount, ino, _) = self.descriptor(&fd)?;
        Ok(self.stat_of(mount, ino)?.type_)
    }

    fn set_size(&mut self, fd: Resource<Descriptor>, size: u64) -> FsResult<()> {
        let (mount, ino, flags) = self.descriptor(&fd)?;
        if !flags.contains(DescriptorFlags::WRITE) {
            return Err(Code::BadDescriptor.into());
        }
        let mut state = self.fs.lock();
        let max = state.max_file_bytes;
        let tree = match size {
            // Emptying needs none of the old bytes.
            0 => &mut state.mounts[mount].tree,
            _ => {
                let old = state.size(mount, ino)?;
                state.pages(mount, ino, old, size)?
            }
        };
        Ok(tree.set_size(ino, size, max)?)
    }

    fn set_times(
        &mut self,
        fd: Resource<Descriptor>,
        _atime: NewTimestamp,
        _mtime: NewTimestamp,
    ) -> FsResult<()> {
        // memcap never sets times; refused rather than faked.
        self.descriptor(&fd)?;
        Err(Code::Unsupported.into())
    }

    fn read(
        &mut self,
        fd: Resource<Descriptor>,
        len: u64,
        offset: u64,
    ) -> FsResult<(Vec<u8>, bool)> {
        let (mount, ino, flags) = self.descriptor(&fd)?;
        if !flags.contains(DescriptorFlags::READ) {
            return Err(Code::BadDescriptor.into());
        }
        let mut state = self.fs.lock();
        let bytes = state
            .range(mount, ino, offset, offset.saturating_add(len))?
            .to_vec();
        let end_of_file = bytes.is_empty() && len > 0;
        Ok((bytes, end_of_file))
    }

    fn write(&mut self, fd: Resource<Descriptor>, buffer: Vec<u8>, offset: u64) -> FsResult<u64> {
        let (mount, ino, flags) = self.descriptor(&fd)?;
        if !flags.contains(DescriptorFlags::WRITE) {
            return Err(Code::BadDescriptor.into());
        }
        let mut state = self.fs.lock();
        let max = state.max_file_bytes;
        let first = offset.min(state.size(mount, ino)?);
        let end = offset.saturating_add(buffer.len() as u64);
        state
            .pages(mount, ino, first, end)?
            .write(ino, offset, &buffer, max)?;
        Ok(buffer.len() as u64)
    }

    fn read_directory(&mut self, fd: Resource<Descriptor>) -> FsResult<Resource<EntryStream>> {
        let (mount, ino) = self.dir(&fd, false)?;
        let entries = {
            let mut state = self.fs.lock();
            let tree = &*state.whole(mount)?;
            match &tree.node(ino).ok_or(Code::BadDescriptor)?.body {
                Body::Dir(entries) => entries
                    .iter()
                    .map(|(name, &child)| DirectoryEntry {
                        type_: if tree.node(child).is_some_and(|n| n.is_dir()) {
                            DescriptorType::Directory
                        } else {
                            DescriptorType::RegularFile
                        },
                        name: name.clone(),
                    })
                    .collect(),
                Body::File(_) | Body::Paged(_) => return Err(Code::NotDirectory.into()),
            }
        };
        Ok(self.table.push(EntryStream(entries))?)
    }

    fn sync(&mut self, fd: Resource<Descriptor>) -> FsResult<()> {
        self.descriptor(&fd)?;
        Ok(())
    }

    fn create_directory_at(&mut self, fd: Resource<Descriptor>, path: String) -> FsResult<()> {
        let (mount, dir, name) = self.parent(&fd, &path, false)?;
        self.fs.lock().mounts[mount].tree.create_dir(dir, &name)?;
        Ok(())
    }

    fn stat(&mut self, fd: Resource<Descriptor>) -> FsResult<DescriptorStat> {
        let (mount, ino, _) = self.descriptor(&fd)?;
        if ino == ROOT_INO {
            // A sparse tree has read the root's times with its first
            // lookup; before one, they are read now.
            self.fs.lock().reveal(mount, ROOT_INO, "")?;
        }
        self.stat_of(mount, ino)
    }

    fn stat_at(
        &mut self,
        fd: Resource<Descriptor>,
        _flags: PathFlags,
        path: String,
    ) -> FsResult<DescriptorStat> {
        let (mount, ino) = self.resolve(&fd, &path)?;
        self.stat_of(mount, ino)
    }

    fn set_times_at(
        &mut self,
        fd: Resource<Descriptor>,
        _flags: PathFlags,
        path: String,
        _atime: NewTimestamp,
        _mtime: NewTimestamp,
    ) -> FsResult<()> {
        self.resolve(&fd, &path)?;
        Err(Code::Unsupported.into())
    }

    fn link_at(
        &mut self,
        fd: Resource<Descriptor>,
        _flags: PathFlags,
        old_path: String,
        new_fd: Resource<Descriptor>,
        new_path: String,
    ) -> FsResult<()> {
        // The file gains a name: every name it has must be here.
        let (mount, from_dir, from) = self.parent(&fd, &old_path, false)?;
        let ino = self.fs.lock().mounts[mount].tree.resolve(from_dir, &from)?;
        let (to_mount, dir, name) = self.parent(&new_fd, &new_path, false)?;
        if to_mount != mount {
            return Err(Code::CrossDevice.into());
        }
        self.fs.lock().mounts[mount].tree.link(ino, dir, &name)?;
        Ok(())
    }

    fn open_at(
        &mut self,
        fd: Resource<Descriptor>,
        _path_flags: PathFlags,
        path: String,
        open_flags: OpenFlags,
        flags: DescriptorFlags,
    ) -> FsResult<Resource<Descriptor>> {
        let (mount, _, dir_flags) = self.descriptor(&fd)?;
        let changes = open_flags.intersects(OpenFlags::CREATE | OpenFlags::TRUNCATE)
            || flags.intersects(DescriptorFlags::WRITE | DescriptorFlags::MUTATE_DIRECTORY);
        let (_, base) = self.dir(&fd, changes)?;
        let ino = {
            let mut state = self.fs.lock();
            let max = state.max_file_bytes;
            let tree = match changes {
                true => state.for_change(mount, base, &path, false)?,
                false => {
                    state.reveal(mount, base, &path)?;
                    &mut state.mounts[mount].tree
                }
            };
            let exclusive = open_flags.contains(OpenFlags::CREATE | OpenFlags::EXCLUSIVE);
            let ino = match tree.resolve_parent(base, &path)? {
                (_, None) if exclusive => return Err(Code::Exist.into()),
                (dir, None) => dir,
                (dir, Some(name)) => match tree.resolve(dir, &name) {
                    Ok(_) if exclusive => return Err(Code::Exist.into()),
                    Ok(ino) => ino,
                    Err(Code::NoEntry) if open_flags.contains(OpenFlags::CREATE) => {
                        if open_flags.contains(OpenFlags::DIRECTORY) {
                            return Err(Code::Invalid.into());
                        }
                        tree.create_file(dir, &name)?
                    }
                    Err(e) => return Err(e.into()),
                },
            };
            let node = tree.node(ino).ok_or(Code::NoEntry)?;
            if node.is_dir() {
                if flags.contains(DescriptorFlags::WRITE) {
                    return Err(Code::IsDirectory.into());
                }
            } else if open_flags.contains(OpenFlags::DIRECTORY) {
                return Err(Code::NotDirectory.into());
            }
            if open_flags.contains(OpenFlags::TRUNCATE) {
                tree.set_size(ino, 0, max)?;
            }
            ino
        };
        let mut granted = flags & (DescriptorFlags::READ | DescriptorFlags::WRITE);
        if dir_flags.contains(DescriptorFlags::MUTATE_DIRECTORY) {
            granted |= DescriptorFlags::MUTATE_DIRECTORY;
        }
        Ok(self.table.push(Descriptor {
            mount,
            ino,
            flags: granted,
        })?)
    }

    fn readlink_at(&mut self, fd: Resource<Descriptor>, path: String) -> FsResult<String> {
        // No symbolic links exist here: what Linux says of any other file.
        self.resolve(&fd, &path)?;
        Err(Code::Invalid.into())
    }

    fn remove_directory_at(&mut self, fd: Resource<Descriptor>, path: String) -> FsResult<()> {
        let (mount, dir, name) = self.parent(&fd, &path, true)?;
        self.fs.lock().mounts[mount].tree.remove_dir(dir, &name)?;
        Ok(())
    }

    fn rename_at(
        &mut self,
        fd: Resource<Descriptor>,
        old_path: String,
        new_fd: Resource<Descriptor>,
        new_path: String,
    ) -> FsResult<()> {
        // A file moves on a sparse tree, a directory on the whole one (a
        // tree read whole keeps its inodes: the first lookup still holds).
        let (mount, from_dir, from) = self.parent(&fd, &old_path, true)?;
        let (to_mount, to_dir, to) = self.parent(&new_fd, &new_path, true)?;
        if to_mount != mount {
            return Err(Code::CrossDevice.into());
        }
        self.fs.lock().mounts[mount]
            .tree
            .rename(from_dir, &from, to_dir, &to)?;
        Ok(())
    }

    fn symlink_at(
        &mut self,
        fd: Resource<Descriptor>,
        _old_path: String,
        _new_path: String,
    ) -> FsResult<()> {
        // A link could only name something inside the namespace, but
        // memcap never makes one, and the store keeps none.
        self.dir(&fd, true)?;
        Err(Code::NotPermitted.into())
    }

    fn unlink_file_at(&mut self, fd: Resource<Descriptor>, path: String) -> FsResult<()> {
        let (mount, dir, name) = self.parent(&fd, &path, false)?;
        self.fs.lock().mounts[mount].tree.unlink_file(dir, &name)?;
        Ok(())
    }

    fn is_same_object(
        &mut self,
        fd: Resource<Descriptor>,
        other: Resource<Descriptor>,
    ) -> wasmtime::Result<bool> {
        let a = self.table.get(&fd)?;
        let b = self.table.get(&other)?;
        Ok(a.mount == b.mount && a.ino == b.ino)
    }

    fn metadata_hash(&mut self, fd: Resource<Descriptor>) -> FsResult<MetadataHashValue> {
        let (mount, ino, _) = self.descriptor(&fd)?;
        Ok(self.hash_of(mount, ino))
    }

    fn metadata_hash_at(
        &mut self,
        fd: Resource<Descriptor>,
        _flags: PathFlags,
        path: String,
    ) -> FsResult<MetadataHashValue> {
        let (mount, ino) = self.resolve(&fd, &path)?;
        Ok(self.hash_of(mount, ino))
    }

    fn drop(&mut self, fd: Resource<Descriptor>) -> wasmtime::Result<()> {
        self.table.delete(fd)?;
        Ok(())
    }
}

impl types::HostDirectoryEntryStream for FsView<'_> {
    fn read_directory_entry(
        &mut self,
        stream: Resource<EntryStream>,
    ) -> FsResult<Option<DirectoryEntry>> {
        Ok(self.table.get_mut(&stream)?.0.pop_front())
    }

    fn drop(&mut self, stream: Resource<EntryStream>) -> wasmtime::Result<()> {
        self.table.delete(stream)?;
        Ok(())
    }
}

impl preopens::Host for FsView<'_> {
    fn get_directories(&mut self) -> wasmtime::Result<Vec<(Resource<Descriptor>, String)>> {
        let mounts: Vec<(String, bool)> = self
            .fs
            .lock()
            .mounts
            .iter()
            .map(|m| (m.guest_name.clone(), m.writable))
            .collect();
        let mut out = Vec::with_capacity(mounts.len());
        for (mount, (name, writable)) in mounts.into_iter().enumerate() {
            let mut flags = DescriptorFlags::READ;
            if writable {
                flags |= DescriptorFlags::WRITE | DescriptorFlags::MUTATE_DIRECTORY;
            }
            let fd = self.table.push(Descriptor {
                mount,
                ino: ROOT_INO,
                flags,
            })?;
            out.push((fd, name));
        }
        Ok(out)
    }
}
