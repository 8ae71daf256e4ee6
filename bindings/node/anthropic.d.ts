import type { MemoryToolHandlers } from '@anthropic-ai/sdk/helpers/beta/memory';
import { ToolError } from '@anthropic-ai/sdk/lib/tools/ToolError';
import { Limits, Memory, ToolErrorKind } from './index.js';

export { betaMemoryTool } from '@anthropic-ai/sdk/helpers/beta/memory';

/** The SDK's `ToolError`, with the `tool-error` case memcap reported. */
export class MemcapToolError extends ToolError {
  constructor(kind: ToolErrorKind, message: string);
  readonly kind: ToolErrorKind;
}

/** Claude's memory tool handlers, run inside memcap's sandbox. */
export class BetaLocalFilesystemMemoryTool implements MemoryToolHandlers {
  constructor(basePath?: string, limits?: Limits);
  static init(basePath?: string, limits?: Limits): Promise<BetaLocalFilesystemMemoryTool>;
  readonly basePath: string;
  readonly memoryRoot: string;
  readonly memory: Memory;
  view: MemoryToolHandlers['view'];
  create: MemoryToolHandlers['create'];
  str_replace: MemoryToolHandlers['str_replace'];
  insert: MemoryToolHandlers['insert'];
  delete: MemoryToolHandlers['delete'];
  rename: MemoryToolHandlers['rename'];
}

export const MemcapMemoryTool: typeof BetaLocalFilesystemMemoryTool;
