// The Node package's wasi:filesystem (bindings/node/filesystem.js), called
// as the component calls it: what is written lands where it was asked, reads
// end where the file does, and no path, `..` or link reaches outside the
// granted directory.
//
//   node filesystem_node.mjs WORKDIR   (run where memcap is installed)
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { createFilesystem } from './node_modules/memcap/filesystem.js';

const work = process.argv[2];
const root = join(work, 'root');
mkdirSync(join(root, 'dir'), { recursive: true });
writeFileSync(join(work, 'secret'), 'outside');
mkdirSync(join(work, 'elsewhere'));

const { types, preopens } = createFilesystem(root, '/memories');
const [[dir, name]] = preopens.getDirectories();
assert.equal(name, '/memories');
assert.ok(dir instanceof types.Descriptor);

let checks = 0;
function refused(code, f, what) {
  let got;
  try {
    f();
  } catch (e) {
    got = e;
  }
  // Only the WASI code crosses: never an Error, an OS message or a host path.
  assert.equal(got, code, `${what}: got ${got}`);
  checks++;
}

const follow = { symlinkFollow: true };
const nofollow = { symlinkFollow: false };
const none = { create: false, directory: false, exclusive: false, truncate: false };
const createNew = { ...none, create: true, exclusive: true };
const asDir = { ...none, directory: true };
const read = { read: true };
const write = { write: true };
const dispose = Symbol.dispose || Symbol.for('dispose');
const bytes = (s) => new TextEncoder().encode(s);
const text = (b) => new TextDecoder().decode(b);

// Writes land at their offset (an append after the end, an overwrite inside).
const f = dir.openAt(nofollow, 'dir/a.md', createNew, write);
assert.equal(f.write(bytes('hello\n'), 0n), 6n);
assert.equal(f.write(bytes('world\n'), 6n), 6n);
assert.equal(f.write(bytes('W'), 6n), 1n);
f.sync();
assert.equal(f.stat().size, 12n);
f[dispose]();
assert.equal(readFileSync(join(root, 'dir/a.md'), 'utf8'), 'hello\nWorld\n');
checks++;

// A read returns what is there from the offset; short means the end.
const r = dir.openAt(nofollow, 'dir/a.md', none, read);
let [got, eof] = r.read(5n, 0n);
assert.deepEqual([text(got), eof], ['hello', false]);
[got, eof] = r.read(100n, 6n);
assert.deepEqual([text(got), eof], ['World\n', true]);
[got, eof] = r.read(10n, 50n);
assert.deepEqual([got.length, eof], [0, true]);
assert.deepEqual(r.metadataHash(), dir.metadataHashAt(nofollow, 'dir/a.md'));
r[dispose]();
checks++;

// The file system's own refusals, as codes.
refused('exist', () => dir.openAt(nofollow, 'dir/a.md', createNew, write), 'a second exclusive create');
refused('no-entry', () => dir.statAt(nofollow, 'dir/none.md'), 'a missing file');
refused('is-directory', () => dir.openAt(nofollow, 'dir', asDir, write), 'a directory opened to write');
refused('not-directory', () => dir.openAt(nofollow, 'dir/a.md', asDir, read), 'a file opened as a directory');
refused('not-empty', () => dir.removeDirectoryAt('dir'), 'a directory with a file in it');
refused('invalid', () => dir.statAt(nofollow, 'dir/a\0.md'), 'a NUL in a name');

// Nothing outside the granted directory can be named.
symlinkSync(join(work, 'secret'), join(root, 'absolute'));
symlinkSync('../secret', join(root, 'climbs'));
symlinkSync('../../elsewhere', join(root, 'dir/climbs-dir'));
symlinkSync('dir', join(root, 'inside'));
symlinkSync('loop', join(root, 'loop'));
refused('not-permitted', () => dir.statAt(nofollow, '../secret'), '..');
refused('not-permitted', () => dir.statAt(nofollow, 'dir/../../secret'), '.. past the root');
refused('not-permitted', () => dir.statAt(nofollow, '/etc/passwd'), 'an absolute path');
refused('not-permitted', () => dir.openAt(follow, 'absolute', none, read), 'a link to an absolute path');
refused('not-permitted', () => dir.openAt(follow, 'climbs', none, read), 'a link that climbs out');
refused('not-permitted', () => dir.createDirectoryAt('dir/climbs-dir/made'), 'a link to a directory outside');
refused('not-permitted', () => dir.openAt(nofollow, 'dir/climbs-dir/x', createNew, write), 'a new file behind an outward link');
refused('no-entry', () => dir.statAt(nofollow, 'missing/../../secret'), '.. behind a missing name');
refused('loop', () => dir.openAt(nofollow, 'climbs', none, read), 'a link as the last name, not followed');
refused('loop', () => dir.statAt(follow, 'loop'), 'a link to itself');
assert.ok(!existsSync(join(work, 'elsewhere/made')) && readdirSync(join(work, 'elsewhere')).length === 0);
checks++;

// Links inside are followed inside; not followed, a link is itself.
assert.equal(dir.statAt(nofollow, 'inside').type, 'symbolic-link');
assert.equal(dir.statAt(follow, 'inside').type, 'directory');
assert.equal(dir.statAt(follow, 'inside/a.md').size, 12n);
// An opened directory resolves from where it is.
const sub = dir.openAt(follow, 'inside', asDir, read);
assert.equal(sub.statAt(nofollow, 'a.md').size, 12n);
refused('not-permitted', () => sub.statAt(nofollow, '../../secret'), '.. past the root from a subdirectory');
sub.sync();
sub[dispose]();
dir.sync();
checks++;

// A listing gives names and types; a name that is not UTF-8 is reported
// as such and the listing goes on after it.
writeFileSync(Buffer.concat([Buffer.from(join(root, 'dir/')), Buffer.from([0x62, 0xff, 0x2e, 0x6d, 0x64])]), 'x');
const listed = [];
let undecodable = 0;
const stream = dir.openAt(follow, 'dir', asDir, read).readDirectory();
for (let i = 0; i < 10; i++) {
  let entry;
  try {
    entry = stream.readDirectoryEntry();
  } catch (e) {
    assert.equal(e, 'illegal-byte-sequence');
    undecodable++;
    continue;
  }
  if (entry === undefined) break;
  listed.push(`${entry.name}:${entry.type}`);
}
assert.deepEqual(listed.sort(), ['a.md:regular-file', 'climbs-dir:symbolic-link']);
assert.equal(undecodable, 1);
checks++;

// Renames, links and removals stay inside too.
dir.renameAt('dir/a.md', dir, 'b.md');
dir.linkAt(nofollow, 'b.md', dir, 'dir/c.md');
dir.unlinkFileAt('b.md');
assert.equal(readFileSync(join(root, 'dir/c.md'), 'utf8'), 'hello\nWorld\n');
refused('not-permitted', () => dir.renameAt('dir/c.md', dir, '../stolen'), 'a rename out');
refused('not-permitted', () => dir.linkAt(nofollow, 'dir/c.md', dir, 'dir/climbs-dir/stolen'), 'a link out');
refused('not-permitted', () => dir.unlinkFileAt('../secret'), 'a removal outside');
assert.equal(readFileSync(join(work, 'secret'), 'utf8'), 'outside');
checks++;

console.log(`filesystem_node.mjs: ${checks} checks passed`);
