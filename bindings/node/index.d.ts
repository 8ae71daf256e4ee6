/** The `tool-error` case of a failed command (and host failures). */
export type ToolErrorKind =
  | 'invalid-path' | 'invalid-input' | 'escape' | 'protected' | 'not-found' | 'already-exists'
  | 'not-a-file' | 'not-a-directory' | 'no-match' | 'multiple-matches' | 'invalid-line'
  | 'not-text' | 'too-large' | 'conflict' | 'io' | 'invalid-note' | 'guest-failure';

/** A memory command that did nothing; `message` is what the agent sees. */
export class MemcapError extends Error {
  constructor(kind: ToolErrorKind, message: string, options?: ErrorOptions);
  readonly kind: ToolErrorKind;
}

export interface Limits {
  /** Files in the store, every file outside `.memcap` counted (default 200,000). */
  maxStoreFiles?: number;
  /** Bytes in the store (default 1 GiB). */
  maxStoreBytes?: number;
}
export const DEFAULT_LIMITS: Readonly<Required<Limits>>;

export type NoteType = 'user' | 'feedback' | 'project' | 'reference';

export interface ToolResult {
  content: string;
  isError: boolean;
}
export interface DataResult extends ToolResult {
  data: Record<string, unknown>;
}
export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export type Source = 'all' | 'memory' | 'chat' | 'custom';

/** What `memorySearch` keeps: each list any of its items (case aside), all given together. */
export interface SearchFilters {
  /** Observation categories on the passage's lines: `['decision']`. */
  categories?: string[] | string;
  /** Observation tags on those lines, `#` or not: `['db']`. */
  tags?: string[] | string;
  /** Note types: `['project']`, or another vault's `['person']`. */
  types?: string[] | string;
  /** Notes changed since: `2026-11-01`, `7d`, `2 weeks`. */
  afterDate?: string;
  /** Also notes superseded by another or past their `valid_until`: last, marked. */
  includeSuperseded?: boolean;
  /** Passages with a line one of these actors changed last. */
  by?: string[] | string;
  /** Passages with no line one of these actors changed last. */
  notBy?: string[] | string;
}

export interface SearchResult {
  path: string;
  /** `first-last`, as `memoryGet` takes them. */
  lines: string;
  text: string;
  score: number;
  source: Source;
  /** The observations and relations written on those lines. */
  observations: Observation[];
  relations: WrittenRelation[];
  /** The notes that say they supersede this one (with `includeSuperseded`). */
  supersededBy: string[];
  /** Whether the note is past its `valid_until` (with `includeSuperseded`). */
  expired: boolean;
  /** Who last changed these lines, newest change first (empty with no history). */
  changedBy: string[];
  /** When the newest of those changes was made (RFC 3339). */
  changedAt?: string;
}
export interface WrittenRelation {
  relationType: string;
  target: string;
  context?: string;
  line: number;
}
export interface SearchAnswer {
  query: string;
  results: SearchResult[];
  totalFound: number;
  method: string;
  degraded?: string;
  totalFiles: number;
  totalChunks: number;
  /** Passages of superseded or expired notes left out. */
  leftOut: number;
}
export interface GetAnswer {
  path: string;
  lines: string;
  text: string;
  totalLines: number;
  more?: string;
  /** Who last changed these lines, newest change first (empty with no history). */
  changedBy: string[];
  /** When the newest of those changes was made (RFC 3339). */
  changedAt?: string;
}
export interface StatsAnswer {
  totalFiles: number;
  totalChunks: number;
  indexedAt?: string;
  sources: Source[];
  indexBytes: bigint;
  method: string;
  vectors: boolean;
  model?: string;
  changedSinceIndexed: number;
  entities: number;
  observations: number;
  relations: number;
  unresolved: number;
  unreadable: string[];
  cut: string[];
  historyVersions: bigint;
  historyBytes: bigint;
  historySince?: string;
  historyProblem?: string;
}
export interface GraphNote {
  path: string;
  title: string;
  permalink: string;
  noteType: string;
  changed?: string;
}
export interface Observation {
  category: string;
  content: string;
  tags: string[];
  context?: string;
  line: number;
}
export interface Relation {
  relationType: string;
  target: string;
  resolved?: string;
  context?: string;
  line: number;
}
export interface ContextNote {
  note: GraphNote;
  observations: Observation[];
  relations: Relation[];
  moreObservations: number;
  moreRelations: number;
  /** The notes it says it supersedes (paths). */
  supersedes: string[];
  /** The notes that say they supersede it: it may no longer hold. */
  supersededBy: string[];
  /** Whether it is past its `valid_until`. */
  expired: boolean;
}
export interface RelatedNote {
  note: GraphNote;
  relationType: string;
  from: string;
  to: string;
  depth: number;
  primary: string;
}
export interface ContextAnswer {
  url: string;
  depth: number;
  timeframe?: string;
  primary: ContextNote[];
  related: RelatedNote[];
  moreRelated: number;
  page: number;
  pages: number;
  total: number;
}
export interface ActivityItem {
  itemType: string;
  note: GraphNote;
  observations: number;
  relations: number;
  observation?: Observation;
  relation?: Relation;
}
export interface ActivityAnswer {
  timeframe: string;
  since: string;
  itemType?: string;
  items: ActivityItem[];
  page: number;
  pages: number;
  total: number;
}

/** A memory directory served to memcap's component as `/memories`. */
export class Memory {
  /** `vectors: false`: searches are keywords only (BM25), and say so. */
  constructor(root: string, limits?: Limits, options?: { vectors?: boolean });
  readonly root: string;
  open(): Promise<unknown>;
  view(path: string, viewRange?: [number, number]): Promise<string>;
  create(path: string, fileText: string): Promise<string>;
  strReplace(path: string, oldStr: string, newStr: string): Promise<string>;
  insert(path: string, insertLine: number, insertText: string): Promise<string>;
  delete(path: string): Promise<string>;
  rename(oldPath: string, newPath: string): Promise<string>;
  memoryRead(topics?: string[], page?: number): Promise<string>;
  memoryView(all?: boolean, page?: number): Promise<string>;
  memoryWrite(filename: string, name: string, description: string, type: NoteType, content: string): Promise<string>;
  memoryUpdate(filename: string, oldStr: string, newStr: string): Promise<string>;
  memoryDelete(filename: string): Promise<string>;
  memoryGuide(): Promise<string>;
  memoryReview(timeframe?: string): Promise<string>;
  memorySearch(query: string, maxResults?: number, minScore?: number, source?: Source, filters?: SearchFilters): Promise<SearchAnswer>;
  memoryGet(path: string, first?: number, last?: number): Promise<GetAnswer>;
  memoryStats(): Promise<StatsAnswer>;
  buildContext(url: string, depth?: number, timeframe?: string, maxRelated?: number, page?: number): Promise<ContextAnswer>;
  recentActivity(timeframe?: string, type?: string, page?: number): Promise<ActivityAnswer>;
  memoryHistory(path: string, version?: number, page?: number): Promise<string>;
  recordTurn(session: string, role: 'user' | 'assistant' | 'system' | 'tool', text: string): Promise<string>;
  prompt(): Promise<string>;
  describe(): Promise<ToolDefinition[]>;
  call(input: string | Record<string, unknown>): Promise<ToolResult>;
  callWithData(input: string | Record<string, unknown>): Promise<DataResult>;
}
