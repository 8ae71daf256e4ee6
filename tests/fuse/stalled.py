"""A FUSE file system that stops answering, for host/tests/stalled_fs.rs.

Usage: stalled.py MOUNTPOINT RELEASE

Serves one directory holding `slow.md`. Listing it and stat'ing it answer
at once; reading the note waits until the file RELEASE exists, as a network
or FUSE file system does when its server hangs. Runs in the foreground
until unmounted.
"""

import errno
import os
import stat
import sys
import time

import mfusepy as fuse

TEXT = b"# Slow\nThe slow note lives on a file system that stops answering.\n"


class Stalled(fuse.Operations):
    use_ns = True

    def __init__(self, release):
        self.released = release
        self.started = time.time_ns()

    def getattr(self, path, fh=None):
        times = dict(st_ctime=self.started, st_mtime=self.started, st_atime=self.started)
        if path == "/":
            return dict(st_mode=stat.S_IFDIR | 0o755, st_nlink=2, **times)
        if path == "/slow.md":
            return dict(st_mode=stat.S_IFREG | 0o644, st_nlink=1, st_size=len(TEXT), **times)
        raise fuse.FuseOSError(errno.ENOENT)

    def readdir(self, path, fh):
        return [".", "..", "slow.md"]

    def open(self, path, flags):
        return 0

    def read(self, path, size, offset, fh):
        # Bounded: the test releases it or unmounts within a minute.
        for _ in range(1200):
            if os.path.exists(self.released):
                break
            time.sleep(0.05)
        return TEXT[offset : offset + size]


if __name__ == "__main__":
    fuse.FUSE(Stalled(sys.argv[2]), sys.argv[1], foreground=True, nothreads=False)
