// The Node package's own API, as installed from its tarball: typed methods,
// error kinds, the JSON calls, two stores in one process, and the SDK class
// used directly.
//
//   node api_node.mjs WORKDIR   (run where memcap is installed)
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { Memory, MemcapError } from 'memcap';
import { BetaLocalFilesystemMemoryTool, MemcapToolError } from 'memcap/anthropic';
import { ToolError } from '@anthropic-ai/sdk/lib/tools/ToolError';

const work = process.argv[2];
let checks = 0;
const check = (cond, what) => {
  assert.ok(cond, what);
  checks++;
};
async function expectKind(kind, promise) {
  try {
    await promise;
  } catch (e) {
    check(e instanceof MemcapError && e.kind === kind, `${kind}: got ${e}`);
    check(!e.message.includes(work), `a host path reached the message: ${e.message}`);
    return e;
  }
  assert.fail(`no ${kind} error`);
}

const m = new Memory(join(work, 'a'));
check((await m.create('/memories/todo.md', 'buy milk\n')) === 'File created successfully at: /memories/todo.md', 'create');
check((await m.view('/memories/todo.md', [1, 1])).endsWith('     1\tbuy milk'), 'view range');
check((await m.strReplace('/memories/todo.md', 'milk', 'oat milk')).startsWith('The memory file has been edited.'), 'strReplace');
check((await m.insert('/memories/todo.md', 0, '# Todo')) === 'The file /memories/todo.md has been edited.', 'insert');
check((await m.rename('/memories/todo.md', '/memories/lists/todo.md')).startsWith('Successfully renamed'), 'rename');
await expectKind('not-found', m.view('/memories/nope'));
await expectKind('escape', m.view('/memories/../secret'));
await expectKind('invalid-path', m.view('/etc/passwd'));
await expectKind('already-exists', m.create('/memories/lists/todo.md', 'x'));
await expectKind('multiple-matches', m.strReplace('/memories/lists/todo.md', 'o', '0'));
await expectKind('invalid-line', m.insert('/memories/lists/todo.md', 99, 'x'));
await expectKind('protected', m.delete('/memories'));
check((await m.memoryWrite('db', 'Database', 'Which database', 'project', 'Postgres 16')).startsWith('Saved note'), 'memoryWrite');
check((await m.memoryUpdate('db', '16', '17')).includes('Postgres 17'), 'memoryUpdate');
check((await m.memoryRead(['database'])).includes('Postgres 17'), 'memoryRead');
check((await m.memoryView(true)).includes('/memories/db.md\n  name: Database'), 'memoryView');
check((await m.prompt()).includes('[Database](db.md)'), 'prompt');
const found = await m.memorySearch('postgres', 3);
check(found.results.length === 1 && found.results[0].path === '/memories/db.md' && found.method === 'hybrid', JSON.stringify(found));
const [first, last] = found.results[0].lines.split('-').map(Number);
check((await m.memoryGet('/memories/db.md', first, last)).text === found.results[0].text, 'memoryGet takes the hit\'s lines');
check((await m.memoryStats()).totalFiles >= 2, 'memoryStats');
await m.memoryWrite('alpha', 'Alpha', '', 'project', '- [decision] Use Postgres #db (chosen for JSON)\n- depends_on [[Database]]\n- owned_by [[Bob]]');
const ctx = await m.buildContext('memory://alpha', 2);
const alpha = ctx.primary[0];
check(alpha.observations[0].category === 'decision' && alpha.observations[0].context === 'chosen for JSON', JSON.stringify(ctx));
check(JSON.stringify(alpha.relations.map((r) => [r.relationType, r.resolved ?? null])) === '[["depends_on","/memories/db.md"],["owned_by",null]]', JSON.stringify(ctx));
check(ctx.related.length === 1 && ctx.related[0].note.path === '/memories/db.md' && ctx.related[0].depth === 1, JSON.stringify(ctx));
const recent = await m.recentActivity('1d', 'relation');
check(recent.total === 2 && recent.items[0].relation.target === 'Database', JSON.stringify(recent));
check((await m.memoryStats()).unresolved === 1, 'memoryStats counts the relation to Bob as unresolved');
check((await m.memoryView(true)).includes('  relations: 2 ('), 'memoryView counts the relations a note writes');
const tagged = await m.memorySearch('postgres', undefined, 0, undefined, { tags: ['#db'], types: 'project' });
check(tagged.results.length === 1 && tagged.results[0].path === '/memories/alpha.md', JSON.stringify(tagged));
check(JSON.stringify(tagged.results[0].observations[0].tags) === '["db"]', JSON.stringify(tagged));
const who = tagged.results[0].changedBy;
check(who.length === 1 && tagged.results[0].changedAt, JSON.stringify(tagged));
check(JSON.stringify((await m.memoryGet('/memories/alpha.md')).changedBy) === JSON.stringify(who), 'memoryGet says who last changed its lines');
check((await m.memorySearch('postgres', undefined, 0, undefined, { by: who })).results.length > 0, 'by keeps what the actor changed');
check((await m.memorySearch('postgres', undefined, 0, undefined, { notBy: who })).results.length === 0, 'notBy leaves it out');
await expectKind('invalid-path', m.memorySearch('postgres', undefined, undefined, undefined, { afterDate: 'soon' }));
await m.create('/memories/alpha-v2.md', 'Alpha moved off Postgres.\n\n- supersedes [[Alpha]]\n');
const fresh = await m.memorySearch('postgres', undefined, 0);
check(!fresh.results.some((r) => r.path === '/memories/alpha.md') && fresh.leftOut >= 1, JSON.stringify(fresh));
const every = await m.memorySearch('postgres', undefined, 0, undefined, { includeSuperseded: true });
check(every.results.some((r) => r.path === '/memories/alpha.md' && JSON.stringify(r.supersededBy) === '["/memories/alpha-v2.md"]'), JSON.stringify(every));
const review = await m.memoryReview('1d');
check(review.startsWith('Review of /memories: nothing was changed.') && review.includes('Likely duplicates'), review);
await expectKind('invalid-path', m.memoryReview('soon'));
await m.delete('/memories/alpha-v2.md');
await expectKind('not-found', m.buildContext('memory://nobody'));
await expectKind('invalid-path', m.buildContext('memory://alpha', 4));
await expectKind('invalid-path', m.recentActivity('soon'));
await m.memoryDelete('alpha');
check((await m.memoryGuide()).includes('- depends_on [[Auth Service]]'), 'memoryGuide');
check((await m.recordTurn('s1', 'user', 'Remember the blue teapot')) === 'Recorded turn 1 of session s1 in /memories/chat/s1.md', 'recordTurn');
const chat = await m.memorySearch('teapot', undefined, undefined, 'chat');
check(chat.results.length === 1 && chat.results[0].path === '/memories/chat/s1.md' && chat.results[0].source === 'chat', JSON.stringify(chat));
await m.create('/memories/commute.md', 'I bought a new automobile to drive to the office.\n');
const near = await m.memorySearch('car commute', undefined, 0);
check(near.results[0].path === '/memories/commute.md' && near.degraded === undefined, JSON.stringify(near));
const keywords = new Memory(join(work, 'a'), undefined, { vectors: false });
const off = await keywords.memorySearch('car commute', undefined, 0);
check(off.method === 'bm25' && off.degraded.includes('MEMCAP_VECTORS=off') && off.results.length === 0, JSON.stringify(off));
await expectKind('invalid-path', m.recordTurn('../s', 'user', 'x'));
await expectKind('invalid-path', m.memorySearch('postgres', 0));
await expectKind('escape', m.memoryGet('/memories/../secret'));
await expectKind('invalid-line', m.memoryGet('/memories/db.md', 999));
check((await m.memoryDelete('db')).startsWith('Successfully deleted'), 'memoryDelete');
const tools = await m.describe();
check(tools[0].name === 'memory' && tools[0].inputSchema.type === 'object', 'describe');
const r = await m.call({ command: 'view', path: '/memories/nope' });
check(r.isError && r.content === 'The path /memories/nope does not exist. Please provide a valid path.', 'call');
check((await m.call('not json')).isError, 'call never throws');
const d = await m.callWithData({ command: 'view', path: '/memories/lists/todo.md' });
check(!d.isError && d.data.lines[1] === 'buy oat milk', 'callWithData');

// Calls leave no file open behind them (the package's file system closes
// what the component drops).
const open = () => readdirSync('/proc/self/fd').length;
const fds = open();
for (let i = 0; i < 30; i++) {
  await m.create(`/memories/many/${i}.md`, `note ${i}\n`);
  await m.view(`/memories/many/${i}.md`);
  await m.memorySearch('note', 3);
}
check(open() <= fds + 1, `${open() - fds} more files open after 90 calls`);

// Two stores in one process never see each other.
const b = new Memory(join(work, 'b'));
const c = new Memory(join(work, 'c'));
await b.create('/memories/only-b.md', 'b');
await expectKind('not-found', c.view('/memories/only-b.md'));
check(existsSync(join(work, 'b/only-b.md')) && !existsSync(join(work, 'c/only-b.md')), 'isolated roots');

// The SDK class used directly.
const tool = await BetaLocalFilesystemMemoryTool.init(join(work, 'sdk'));
check((statSync(join(work, 'sdk/memories')).mode & 0o777) === 0o700, 'root is 0700');
check((await tool.create({ command: 'create', path: '/memories/a.md', file_text: 'a' })).startsWith('File created'), 'sdk create');
try {
  await tool.view({ command: 'view', path: '/memories/missing' });
  assert.fail('no error');
} catch (e) {
  check(e instanceof ToolError && e instanceof MemcapToolError && e.kind === 'not-found', `${e}`);
}
check(readdirSync(join(work, 'sdk/memories')).includes('a.md'), 'written');
console.log(`node package API: ${checks} checks passed`);
