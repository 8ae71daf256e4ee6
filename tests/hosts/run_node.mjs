// Serve `memcap call` lines with memcap.wasm transpiled by jco, under Node's
// preview2-shim: tool_use input JSON per line on stdin, one
// {"content", "is_error"} line per input on stdout.
//
//   node run_node.mjs TRANSPILED_DIR HOSTDIR < inputs.jsonl
import { _setPreopens } from '@bytecodealliance/preview2-shim/filesystem';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

const [transpiled, hostDir] = process.argv.slice(2);
_setPreopens({ '/memories': hostDir });
const { tool } = await import(pathToFileURL(resolve(transpiled, 'memcap.js')).href);

for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const { content, isError } = tool.call(line);
  process.stdout.write(JSON.stringify({ content, is_error: isError }) + '\n');
}
