// Per-call latency of `view` and `create` through memcap's Node package and
// through the SDK's own BetaLocalFilesystemMemoryTool, in one process, plus
// import and first-call time. Prints one JSON line.
//
//   node bench_node.mjs WORKDIR CALLS   (run where memcap is installed)
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const [work, n] = [process.argv[2], Number(process.argv[3])];
let t = performance.now();
const { BetaLocalFilesystemMemoryTool: Memcap } = await import('memcap/anthropic');
const imported = performance.now() - t;
const { BetaLocalFilesystemMemoryTool: Sdk } = await import('@anthropic-ai/sdk/tools/memory/node');

const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
async function timed(fn) {
  const s = performance.now();
  await fn();
  return performance.now() - s;
}
async function measure(tool) {
  const creates = [];
  for (let i = 0; i < n; i++) {
    creates.push(await timed(() => tool.create({ command: 'create', path: `/memories/n/${i}.md`, file_text: `note ${i}\n`.repeat(5) })));
  }
  const views = [];
  for (let i = 0; i < n; i++) {
    views.push(await timed(() => tool.view({ command: 'view', path: `/memories/n/${i}.md` })));
  }
  const ms = (x) => Math.round(median(x) * 1000) / 1000;
  return { create_p50_ms: ms(creates), view_p50_ms: ms(views) };
}

t = performance.now();
const memcap = await Memcap.init(join(work, 'memcap'));
await memcap.view({ command: 'view', path: '/memories' });
const first = performance.now() - t;
const result = { memcap: await measure(memcap), sdk: await measure(await Sdk.init(join(work, 'sdk'))) };
Object.assign(result.memcap, { import_ms: Math.round(imported * 10) / 10, first_call_ms: Math.round(first * 10) / 10 });
console.log(JSON.stringify(result));
