// memcap for Node: memcap's WebAssembly component (transpiled by jco into
// ./component) run under @bytecodealliance/preview2-shim, granted one
// directory and nothing else. The directory is served by ./filesystem.js (on
// Node's synchronous calls; preview2-shim's own waits on a worker thread for
// each). Each Memory gets its own instance and its own filesystem
// (`createFilesystem`), so two memories in one process never see each
// other's directory. The guest has no environment but the store quota, no
// arguments and no stdin.
import { readFile, mkdir, chmod, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { cli, clocks, io, random } from '@bytecodealliance/preview2-shim';
import { createFilesystem } from './filesystem.js';
import { instantiate } from './component/memcap.js';

const API = '@0.2.0';
const READS = new Set([
  'view', 'memory_read', 'memory_view', 'prompt', 'memory_search', 'memory_get', 'memory_stats',
  'build_context', 'recent_activity', 'memory_guide', 'memory_history', 'memory_review',
]);

/** A memory command that did nothing; `message` is what the agent sees. */
export class MemcapError extends Error {
  constructor(kind, message, options) {
    super(message, options);
    this.name = 'MemcapError';
    /** The `tool-error` case (`not-found`, `escape`, …). */
    this.kind = kind;
  }
}

// Said after a call that failed inside the guest, as memcap's own host says it.
const AFTER_WRITE =
  ' A file it was changing holds either its old or its new content; view it before retrying.';

let compiled;
function coreModules() {
  // Compiled once per process; every instance shares the code.
  compiled ??= new Map();
  return (name) => {
    if (!compiled.has(name)) {
      compiled.set(name, readFile(new URL(`./component/${name}`, import.meta.url)).then((b) => WebAssembly.compile(b)));
    }
    return compiled.get(name);
  };
}

function importsFor(root, limits, vectors) {
  const fs = createFilesystem(root, '/memories');
  const environment = {
    getEnvironment: () => [
      ['MEMCAP_MAX_FILES', String(limits.maxStoreFiles)],
      ['MEMCAP_MAX_BYTES', String(limits.maxStoreBytes)],
      ...(vectors ? [] : [['MEMCAP_VECTORS', 'off']]),
    ],
    getArguments: () => [],
    initialCwd: () => undefined,
  };
  return {
    'wasi:cli/environment': environment,
    'wasi:cli/exit': cli.exit,
    'wasi:cli/stdin': cli.stdin,
    'wasi:cli/stdout': cli.stdout,
    'wasi:cli/stderr': cli.stderr,
    'wasi:cli/terminal-input': cli.terminalInput,
    'wasi:cli/terminal-output': cli.terminalOutput,
    'wasi:cli/terminal-stdin': cli.terminalStdin,
    'wasi:cli/terminal-stdout': cli.terminalStdout,
    'wasi:cli/terminal-stderr': cli.terminalStderr,
    'wasi:clocks/monotonic-clock': clocks.monotonicClock,
    'wasi:clocks/wall-clock': clocks.wallClock,
    'wasi:filesystem/preopens': fs.preopens,
    'wasi:filesystem/types': fs.types,
    'wasi:io/error': io.error,
    'wasi:io/poll': io.poll,
    'wasi:io/streams': io.streams,
    'wasi:random/insecure-seed': random.insecureSeed,
    'wasi:random/random': random.random,
  };
}

/** Creates `path` and missing parents as 0700 whatever the umask, as the SDK does. */
async function secureMkdir(path) {
  const missing = [];
  for (let p = resolve(path); ; p = dirname(p)) {
    try {
      await stat(p);
      break;
    } catch (e) {
      if (e.code !== 'ENOENT') throw e;
      missing.push(p);
    }
  }
  for (const p of missing.reverse()) {
    try {
      await mkdir(p, { mode: 0o700 });
      await chmod(p, 0o700);
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
    }
  }
}

export const DEFAULT_LIMITS = Object.freeze({ maxStoreFiles: 200000, maxStoreBytes: 1 << 30 });

/**
 * A memory directory, served to the component as `/memories`. `root` is the
 * directory itself (created, mode 0700, on first use). Calls within one
 * process never overlap (Node runs them one at a time); across processes
 * an edit that races another writer fails with `conflict` instead of
 * overwriting it.
 */
export class Memory {
  #root;
  #limits;
  #vectors;
  #instance = null;
  #opening = null;

  constructor(root, limits = DEFAULT_LIMITS, { vectors = true } = {}) {
    this.#root = resolve(root);
    this.#limits = { ...DEFAULT_LIMITS, ...limits };
    this.#vectors = vectors;
  }

  get root() {
    return this.#root;
  }

  /** Creates the directory and the instance; later calls reuse both. */
  async open() {
    if (this.#instance) return this.#instance;
    this.#opening ??= (async () => {
      try {
        await secureMkdir(this.#root);
      } catch (cause) {
        // The OS text names host paths: the agent gets memcap's words instead.
        throw new MemcapError(
          'io',
          'Could not create the memory directory, so nothing was done. The host must let memcap create it, or create it first.',
          { cause },
        );
      }
      return instantiate(coreModules(), importsFor(this.#root, this.#limits, this.#vectors));
    })();
    try {
      this.#instance = await this.#opening;
    } finally {
      this.#opening = null;
    }
    return this.#instance;
  }

  async #export(iface, name, args, writes) {
    const instance = await this.open();
    const fn = instance[`${iface}${API}`]?.[name] ?? instance[iface]?.[name];
    try {
      return fn(...args);
    } catch (e) {
      if (e && e.payload && typeof e.payload.tag === 'string') {
        // jco throws `err(case(message))` with the case as the payload.
        throw new MemcapError(e.payload.tag, e.payload.val);
      }
      // A trap: the instance may be in any state, so the next call gets a new one.
      this.#instance = null;
      throw new MemcapError(
        'guest-failure',
        `The memory command failed inside memcap (an internal error).${writes ? AFTER_WRITE : ''}`,
      );
    }
  }

  view(path, viewRange) {
    const range = viewRange ? [BigInt(viewRange[0]), BigInt(viewRange[1])] : undefined;
    return this.#export('files', 'view', [path, range], false);
  }
  create(path, fileText) {
    return this.#export('files', 'create', [path, fileText], true);
  }
  strReplace(path, oldStr, newStr) {
    return this.#export('files', 'strReplace', [path, oldStr, newStr], true);
  }
  insert(path, insertLine, insertText) {
    return this.#export('files', 'insert', [path, BigInt(insertLine), insertText], true);
  }
  delete(path) {
    return this.#export('files', 'delete', [path], true);
  }
  rename(oldPath, newPath) {
    return this.#export('files', 'rename', [oldPath, newPath], true);
  }
  memoryRead(topics = [], page) {
    return this.#export('notes', 'memoryRead', [topics, page], false);
  }
  memoryView(all = false, page) {
    return this.#export('notes', 'memoryView', [all, page], false);
  }
  memoryWrite(filename, name, description, type, content) {
    return this.#export('notes', 'memoryWrite', [filename, name, description, type, content], true);
  }
  memoryUpdate(filename, oldStr, newStr) {
    return this.#export('notes', 'memoryUpdate', [filename, oldStr, newStr], true);
  }
  memoryDelete(filename) {
    return this.#export('notes', 'memoryDelete', [filename], true);
  }
  /** The whole protocol for keeping memory, with examples of structured notes. */
  memoryGuide() {
    return this.#export('notes', 'memoryGuide', [], false);
  }
  /** What needs a decision, changing nothing: likely duplicates, notes past their `valid_until`, superseded notes still linked, and files others changed within `timeframe` (default `7d`). */
  memoryReview(timeframe) {
    return this.#export('notes', 'memoryReview', [timeframe], false);
  }
  /** The passages that best answer `query`: `{results, totalFound, method, degraded, totalFiles, totalChunks, leftOut}`; `filters` (`{categories, tags, types, afterDate, includeSuperseded, by, notBy}`, each optional) keeps passages holding an observation of one of `categories` with one of `tags`, in notes of one of `types` changed since `afterDate` (`2026-11-01`, `7d`); notes superseded by another or past their `valid_until` are left out (counted in `leftOut`) unless `includeSuperseded`, which puts them last, marked `supersededBy` or `expired`; `by` keeps passages with a line one of these actors changed last, `notBy` those with none. Each result says who last changed its lines: `changedBy`, `changedAt`. */
  memorySearch(query, maxResults, minScore, source, filters) {
    const list = (items) => (items === undefined ? [] : typeof items === 'string' ? [items] : [...items]);
    const record = filters && {
      categories: list(filters.categories),
      tags: list(filters.tags),
      types: list(filters.types),
      afterDate: filters.afterDate ?? undefined,
      includeSuperseded: Boolean(filters.includeSuperseded),
      by: list(filters.by),
      notBy: list(filters.notBy),
    };
    return this.#export('search', 'memorySearch', [query, maxResults, minScore, source, record], false);
  }
  /** Lines `first`..`last` of a file: `{path, lines, text, totalLines, more, changedBy, changedAt}`. */
  memoryGet(path, first, last) {
    return this.#export('search', 'memoryGet', [path, first, last], false);
  }
  /** How the search index stands (`indexBytes` is a BigInt). */
  memoryStats() {
    return this.#export('search', 'memoryStats', [], false);
  }
  /** The notes `url` names (`memory://projects/alpha`, `memory://projects/*`) with their observations and relations, and the notes those reach: `{primary, related, page, pages, total}`. */
  buildContext(url, depth, timeframe, maxRelated, page) {
    return this.#export('graph', 'buildContext', [url, depth, timeframe, maxRelated, page], false);
  }
  /** What changed in `timeframe` (default 7d), newest first: `{items, since, page, pages, total}`. */
  recentActivity(timeframe, type, page) {
    return this.#export('graph', 'recentActivity', [timeframe, type, page], false);
  }
  /** The versions of `path` (a file, or everything under a directory), newest first, 50 a page; with `version`, that version's text. */
  memoryHistory(path, version, page) {
    const v = version === undefined || version === null ? undefined : BigInt(version);
    return this.#export('versions', 'memoryHistory', [path, v, page], false);
  }
  /** Records one turn of conversation `session` in `/memories/chat/SESSION.md`, found by `memorySearch` as source `chat`; `role` is user, assistant, system or tool. */
  recordTurn(session, role, text) {
    return this.#export('history', 'recordTurn', [session, role, text], true);
  }
  /** The memory protocol and the current index, for a system prompt. */
  prompt() {
    return this.#export('tool', 'prompt', [], false);
  }

  /** The tools to list to a model: name, description, JSON Schema. */
  async describe() {
    const tools = await this.#export('tool', 'describe', [], false);
    return tools.map((t) => ({ name: t.name, description: t.description, inputSchema: JSON.parse(t.inputSchema) }));
  }

  /** Runs one `tool_use` input (an object or its JSON); never throws for a bad input. */
  async call(input) {
    const r = await this.callWithData(input);
    return { content: r.content, isError: r.isError };
  }

  /** `call`, with the command's result as JSON data too. */
  async callWithData(input) {
    const text = typeof input === 'string' ? input : JSON.stringify(input);
    let command;
    try {
      command = JSON.parse(text)?.command;
    } catch {
      command = undefined;
    }
    try {
      const r = await this.#export('tool', 'callWithData', [text], !READS.has(command));
      return { content: r.content, data: JSON.parse(r.data), isError: r.isError };
    } catch (e) {
      if (!(e instanceof MemcapError)) throw e;
      return { content: e.message, data: { error: { kind: e.kind, message: e.message } }, isError: true };
    }
  }
}
