// wasi:filesystem for memcap's component under Node, on Node's synchronous
// `fs` calls in the caller's thread. preview2-shim sends every call on an
// open descriptor (open, read, write, stat, sync, close) to a worker thread
// and waits for it, ~0.2 ms each, which made a `create` cost ~8x the
// TypeScript SDK's; the same calls here cost what the system calls do.
//
// Only what the component imports is here: the `descriptor` methods memcap's
// storage port uses and `directory-entry-stream`. Errors are thrown as
// `error-code` strings (jco passes them to the guest as `err`); no OS
// message or host path crosses.
//
// The sandbox: every path is resolved under the granted directory one
// component at a time. `..` above it, absolute paths and symbolic links that
// leave it are refused (`not-permitted`), links inside it are followed there
// (at most 40), and the last component is opened with O_NOFOLLOW. Node has
// no openat(2), so a process outside memcap that swaps a checked directory
// for a link between the check and the call could redirect that one call
// (preview2-shim has the same window; memcap's own host, on cap-std, has
// none). The guest cannot make links: it imports no `symlink-at`.
import {
  closeSync, constants, fstatSync, fsyncSync, linkSync, lstatSync, mkdirSync, openSync,
  readSync, readdirSync, readlinkSync, realpathSync, renameSync, rmdirSync, statSync,
  unlinkSync, writeSync,
} from 'node:fs';

const { O_CREAT, O_DIRECTORY, O_DSYNC, O_EXCL, O_NOFOLLOW, O_RDONLY, O_RDWR, O_SYNC, O_TRUNC, O_WRONLY } = constants;
const symbolDispose = Symbol.dispose || Symbol.for('dispose');
const MAX_LINKS = 40;
// One `read` returns at most this much: a bound on what one call allocates.
const READ_CAP = 4 << 20;
const NS = 1_000_000_000n;

// OS error codes as WASI's; anything else is `io` (never a trap, never the text).
const CODES = {
  EACCES: 'access', EAGAIN: 'would-block', EBADF: 'bad-descriptor', EBUSY: 'busy', EDQUOT: 'quota',
  EEXIST: 'exist', EFBIG: 'file-too-large', EILSEQ: 'illegal-byte-sequence', EINTR: 'interrupted',
  EINVAL: 'invalid', EIO: 'io', EISDIR: 'is-directory', ELOOP: 'loop', EMLINK: 'too-many-links',
  ENAMETOOLONG: 'name-too-long', ENOENT: 'no-entry', ENOMEM: 'insufficient-memory',
  ENOSPC: 'insufficient-space', ENOTDIR: 'not-directory', ENOTEMPTY: 'not-empty', ENOTSUP: 'unsupported',
  EOPNOTSUPP: 'unsupported', EOVERFLOW: 'overflow', EPERM: 'not-permitted', EROFS: 'read-only',
  ETXTBSY: 'text-file-busy', EXDEV: 'cross-device',
  // Node's own refusals of an argument (a NUL in a path).
  ERR_INVALID_ARG_VALUE: 'invalid', ERR_INVALID_ARG_TYPE: 'invalid',
};

/** Runs `f`, throwing what it raises as a WASI error code. */
function os(f) {
  try {
    return f();
  } catch (e) {
    throw typeof e === 'string' ? e : (CODES[e?.code] ?? 'io');
  }
}

function kindOf(st) {
  if (st.isFile()) return 'regular-file';
  if (st.isDirectory()) return 'directory';
  if (st.isSymbolicLink()) return 'symbolic-link';
  if (st.isFIFO()) return 'fifo';
  if (st.isSocket()) return 'socket';
  if (st.isCharacterDevice()) return 'character-device';
  if (st.isBlockDevice()) return 'block-device';
  return 'unknown';
}

const time = (ns) => ({ seconds: ns / NS, nanoseconds: Number(ns % NS) });

function descriptorStat(st) {
  return {
    type: kindOf(st),
    linkCount: st.nlink,
    size: st.size,
    dataAccessTimestamp: time(st.atimeNs),
    dataModificationTimestamp: time(st.mtimeNs),
    statusChangeTimestamp: time(st.ctimeNs),
  };
}

// The file's identity, as wasmtime's is: device and inode.
const identity = (st) => ({ lower: st.ino, upper: st.dev });

// An offset as Node's calls take it: a Number (writeSync ignores a BigInt
// position and writes at the file's own offset instead).
function position(offset) {
  if (offset > BigInt(Number.MAX_SAFE_INTEGER)) throw 'overflow';
  return Number(offset);
}

const names = (path) => path.split('/').filter((s) => s !== '' && s !== '.');

// Closes the descriptors the guest never dropped (an instance discarded after a trap).
const unclosed = new FinalizationRegistry((fd) => {
  try {
    closeSync(fd);
  } catch {
    // Already closed.
  }
});

class Descriptor {
  #root; // the granted directory, resolved once: a host path
  #at; // the names of this descriptor below #root, links resolved
  #fd = null; // an open file or directory; the root opens its own on `sync`
  #flags;

  /** @internal */
  static _open(root, at, fd, flags) {
    const d = new Descriptor();
    d.#root = root;
    d.#at = at;
    d.#fd = fd;
    d.#flags = flags;
    if (fd !== null) unclosed.register(d, fd, d);
    return d;
  }

  [symbolDispose]() {
    if (this.#fd !== null) {
      unclosed.unregister(this);
      const fd = this.#fd;
      this.#fd = null;
      os(() => closeSync(fd));
    }
  }

  #host(at) {
    return at.length === 0 ? this.#root : `${this.#root === '/' ? '' : this.#root}/${at.join('/')}`;
  }

  /**
   * `path` under this descriptor as a host path and its names below the
   * root. Links are resolved inside the root, the last one only when
   * `follow` (or the path ends in `/`); a name that does not exist ends the
   * walk, and the call itself then reports it.
   */
  #resolve(path, follow) {
    if (path.startsWith('/')) throw 'not-permitted';
    if (path === '') throw 'no-entry';
    const at = [...this.#at];
    let pending = names(path);
    const followLast = follow || path.endsWith('/');
    let links = 0;
    while (pending.length > 0) {
      const name = pending.shift();
      if (name === '..') {
        if (at.length === 0) throw 'not-permitted';
        at.pop();
        continue;
      }
      if (pending.length === 0 && !followLast) {
        at.push(name);
        break;
      }
      const candidate = this.#host([...at, name]);
      const st = os(() => lstatSync(candidate, { throwIfNoEntry: false }));
      if (st === undefined) {
        // What follows a missing name is never reached, so `..` there cannot leave.
        if (pending.includes('..')) throw 'no-entry';
        at.push(name, ...pending);
        break;
      }
      if (!st.isSymbolicLink()) {
        at.push(name);
        continue;
      }
      if (++links > MAX_LINKS) throw 'loop';
      const target = os(() => readlinkSync(candidate));
      if (target.startsWith('/')) throw 'not-permitted';
      pending = [...names(target), ...pending];
    }
    const host = this.#host(at);
    return { host: path.endsWith('/') && at.length > 0 ? `${host}/` : host, at };
  }

  #open() {
    // The root, and a descriptor whose file was closed, sync through a new one.
    if (this.#fd === null) {
      this.#fd = os(() => openSync(this.#host(this.#at), O_RDONLY | O_DIRECTORY));
      unclosed.register(this, this.#fd, this);
    }
    return this.#fd;
  }

  getFlags() {
    return { ...this.#flags };
  }

  openAt(pathFlags, path, openFlags, descriptorFlags) {
    const { host, at } = this.#resolve(path, pathFlags.symlinkFollow);
    if (descriptorFlags.requestedWriteSync) throw 'unsupported';
    if (openFlags.directory && descriptorFlags.write) throw 'is-directory';
    // Links were resolved above: a link as the last name now is refused, not followed.
    let flags = O_NOFOLLOW;
    if (openFlags.create) flags |= O_CREAT;
    if (openFlags.exclusive) flags |= O_EXCL;
    if (openFlags.truncate) flags |= O_TRUNC;
    if (openFlags.directory) flags |= O_DIRECTORY;
    if (descriptorFlags.fileIntegritySync) flags |= O_SYNC;
    if (descriptorFlags.dataIntegritySync) flags |= O_DSYNC;
    flags |= descriptorFlags.read && descriptorFlags.write ? O_RDWR : descriptorFlags.write ? O_WRONLY : O_RDONLY;
    const fd = os(() => openSync(host, flags, 0o666));
    return Descriptor._open(this.#root, at, fd, { ...descriptorFlags });
  }

  read(length, offset) {
    const fd = this.#file();
    const at = position(offset);
    const want = Number(length < BigInt(READ_CAP) ? length : BigInt(READ_CAP));
    const buffer = Buffer.allocUnsafe(want);
    const n = os(() => readSync(fd, buffer, 0, want, at));
    // A regular file reads short only at its end.
    return [new Uint8Array(buffer.buffer, buffer.byteOffset, n), n < want || want === 0];
  }

  write(bytes, offset) {
    const fd = this.#file();
    const at = position(offset);
    return BigInt(os(() => writeSync(fd, bytes, 0, bytes.length, at)));
  }

  #file() {
    if (this.#fd === null) throw 'bad-descriptor';
    return this.#fd;
  }

  stat() {
    if (this.#fd === null) return this.statAt({ symlinkFollow: false }, '.');
    return descriptorStat(os(() => fstatSync(this.#fd, { bigint: true })));
  }

  statAt(pathFlags, path) {
    const { host } = this.#resolve(path, pathFlags.symlinkFollow);
    return descriptorStat(os(() => lstatSync(host, { bigint: true })));
  }

  metadataHash() {
    if (this.#fd === null) return this.metadataHashAt({ symlinkFollow: false }, '.');
    return identity(os(() => fstatSync(this.#fd, { bigint: true })));
  }

  metadataHashAt(pathFlags, path) {
    const { host } = this.#resolve(path, pathFlags.symlinkFollow);
    return identity(os(() => lstatSync(host, { bigint: true })));
  }

  sync() {
    const fd = this.#open();
    os(() => fsyncSync(fd));
  }

  readDirectory() {
    const host = this.#host(this.#at);
    return DirectoryEntryStream._of(os(() => readdirSync(host, { withFileTypes: true, encoding: 'buffer' })));
  }

  createDirectoryAt(path) {
    const { host } = this.#resolve(path, false);
    os(() => mkdirSync(host));
  }

  linkAt(oldPathFlags, oldPath, newDescriptor, newPath) {
    const from = this.#resolve(oldPath, oldPathFlags.symlinkFollow).host;
    const to = newDescriptor.#resolve(newPath, false).host;
    os(() => linkSync(from, to));
  }

  renameAt(oldPath, newDescriptor, newPath) {
    const from = this.#resolve(oldPath, false).host;
    const to = newDescriptor.#resolve(newPath, false).host;
    os(() => renameSync(from, to));
  }

  unlinkFileAt(path) {
    const { host } = this.#resolve(path, false);
    os(() => unlinkSync(host));
  }

  removeDirectoryAt(path) {
    const { host } = this.#resolve(path, false);
    os(() => rmdirSync(host));
  }
}

// A name WASI cannot carry as a string is reported as such; the guest skips it.
const utf8 = new TextDecoder('utf-8', { fatal: true });

class DirectoryEntryStream {
  #entries;
  #next = 0;

  /** @internal */
  static _of(entries) {
    const s = new DirectoryEntryStream();
    s.#entries = entries;
    return s;
  }

  readDirectoryEntry() {
    if (this.#next >= this.#entries.length) return undefined;
    const entry = this.#entries[this.#next++];
    let name;
    try {
      name = utf8.decode(entry.name);
    } catch {
      throw 'illegal-byte-sequence';
    }
    return { type: kindOf(entry), name };
  }
}

/**
 * The `wasi:filesystem/types` and `wasi:filesystem/preopens` imports of an
 * instance granted `root` (an existing directory) as `name`.
 */
export function createFilesystem(root, name) {
  const real = realpathSync(root);
  if (!statSync(real).isDirectory()) throw new Error('the memory root is not a directory');
  const preopen = Descriptor._open(real, [], null, { read: true, write: true, mutateDirectory: true });
  return {
    types: { Descriptor, DirectoryEntryStream },
    preopens: { getDirectories: () => [[preopen, name]] },
  };
}
