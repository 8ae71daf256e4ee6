// Compiled with `tsc --noEmit --strict` against the installed package and
// SDK (test_sdk.py): the package's TypeScript types fit the SDK's tool
// runner and describe the typed API.
import Anthropic from '@anthropic-ai/sdk';
import { BetaLocalFilesystemMemoryTool, betaMemoryTool, MemcapToolError } from 'memcap/anthropic';
import { Memory, MemcapError, type ToolErrorKind } from 'memcap';

export async function session(client: Anthropic): Promise<void> {
  const memory = await BetaLocalFilesystemMemoryTool.init('./memory');
  const runner = client.beta.messages.toolRunner({
    model: 'claude-test',
    max_tokens: 1024,
    tools: [betaMemoryTool(memory)],
    messages: [{ role: 'user', content: 'Remember that I prefer tabs.' }],
  });
  for await (const message of runner) console.log(message.content);
}

export async function typed(): Promise<ToolErrorKind | undefined> {
  const memory = new Memory('./memory/memories');
  const text: string = await memory.view('/memories', [1, 2]);
  const note: string = await memory.memoryWrite('db', 'Database', 'Which one', 'project', 'Postgres');
  const result = await memory.callWithData({ command: 'view', path: '/memories' });
  const isError: boolean = result.isError;
  console.log(text, note, isError, (await memory.describe())[0].inputSchema);
  try {
    await memory.delete('/memories');
  } catch (e) {
    if (e instanceof MemcapError || e instanceof MemcapToolError) return e.kind;
  }
  return undefined;
}
