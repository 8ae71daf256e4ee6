// Drop-in memory tool for Anthropic's TypeScript SDK (@anthropic-ai/sdk).
// Replace one import and nothing else changes:
//
//   // import { BetaLocalFilesystemMemoryTool, betaMemoryTool } from '@anthropic-ai/sdk/tools/memory/node';
//   import { BetaLocalFilesystemMemoryTool, betaMemoryTool } from 'memcap/anthropic';
//
// Same constructor and `init(basePath)` as the SDK's class: files live in
// `basePath/memories` (0700). Every command runs inside memcap's component.
// A failed command throws the SDK's `ToolError` with memcap's message, so the
// tool runner sends it as is with `is_error: true` (carrying `kind`, the
// `tool-error` case).
import { join } from 'node:path';
import { betaMemoryTool } from '@anthropic-ai/sdk/helpers/beta/memory';
import { ToolError } from '@anthropic-ai/sdk/lib/tools/ToolError';
import { Memory, MemcapError } from './index.js';

export { betaMemoryTool };

/** The SDK's `ToolError`, with the `tool-error` case memcap reported. */
export class MemcapToolError extends ToolError {
  constructor(kind, message) {
    super(message);
    this.name = 'MemcapToolError';
    this.kind = kind;
  }
}

export class BetaLocalFilesystemMemoryTool {
  constructor(basePath = './memory', limits) {
    this.basePath = basePath;
    this.memoryRoot = join(basePath, 'memories');
    this.memory = new Memory(this.memoryRoot, limits);
  }

  static async init(basePath = './memory', limits) {
    const tool = new BetaLocalFilesystemMemoryTool(basePath, limits);
    await tool.#open();
    return tool;
  }

  async #open() {
    try {
      await this.memory.open();
    } catch (e) {
      if (e instanceof MemcapError) throw new MemcapToolError(e.kind, e.message);
      throw e;
    }
  }

  async #run(command) {
    await this.#open();
    const result = await this.memory.callWithData(command);
    if (result.isError) {
      throw new MemcapToolError(result.data?.error?.kind ?? 'io', result.content);
    }
    return result.content;
  }

  view(command) {
    return this.#run(command);
  }
  create(command) {
    return this.#run(command);
  }
  str_replace(command) {
    return this.#run(command);
  }
  insert(command) {
    return this.#run(command);
  }
  delete(command) {
    return this.#run(command);
  }
  rename(command) {
    return this.#run(command);
  }
}

/** The same class under a name that says what it is. */
export const MemcapMemoryTool = BetaLocalFilesystemMemoryTool;
