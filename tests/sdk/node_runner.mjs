// One scripted session through Anthropic's own tool runner
// (@anthropic-ai/sdk), with memcap's drop-in memory tool and a mocked
// `fetch`: no network. Each mocked reply holds the next turn's `tool_use`
// blocks; the tool results the runner sends back are printed as JSON.
//
//   node node_runner.mjs SESSION.json BASE_PATH   (run where memcap is installed)
import { readFileSync } from 'node:fs';
import Anthropic from '@anthropic-ai/sdk';
// The one line a user changes: '@anthropic-ai/sdk/tools/memory/node' before.
import { BetaLocalFilesystemMemoryTool, betaMemoryTool } from 'memcap/anthropic';

const [sessionPath, basePath] = process.argv.slice(2);
const session = JSON.parse(readFileSync(sessionPath, 'utf8'));
const sentBack = [];

async function reply(url, init) {
  const body = JSON.parse(init.body);
  const last = body.messages.at(-1);
  if (last.role === 'user' && Array.isArray(last.content)) {
    sentBack.push(
      last.content
        .filter((block) => block.type === 'tool_result')
        .map((block) => ({ content: block.content, is_error: block.is_error === true })),
    );
  }
  const turn = sentBack.length;
  const content =
    turn < session.length
      ? session[turn].map((input, i) => ({ type: 'tool_use', id: `toolu_${turn}_${i}`, name: 'memory', input }))
      : [{ type: 'text', text: 'Done.' }];
  const message = {
    id: `msg_${turn}`, type: 'message', role: 'assistant', model: 'claude-test', content,
    stop_reason: turn < session.length ? 'tool_use' : 'end_turn', stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  };
  return new Response(JSON.stringify(message), { status: 200, headers: { 'content-type': 'application/json' } });
}

const client = new Anthropic({ apiKey: 'test', fetch: reply, maxRetries: 0 });
const memory = await BetaLocalFilesystemMemoryTool.init(basePath);
const runner = client.beta.messages.toolRunner({
  model: 'claude-test',
  max_tokens: 1024,
  messages: [{ role: 'user', content: 'Plan the project and keep notes.' }],
  tools: [betaMemoryTool(memory)],
});
for await (const _ of runner) {
  // The runner answers each tool_use turn itself.
}
process.stdout.write(JSON.stringify(sentBack) + '\n');
