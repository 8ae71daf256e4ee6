// The graph parser against basic-memory's own (PyPI basic-memory, its
// markdown-it plugins run in Pyodide): every hand-written case in cases/
// and generated bodies go through both; each body where they differ must be
// a case listed in DEVIATIONS.md, and each listed case must still differ.
//
//   node tests/graph/differential.mjs --parse target/release/examples/graph_parse \
//        --wheels target/graph-oracle [--generated 1000] [--seed 1]
import { spawnSync } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const here = dirname(fileURLToPath(import.meta.url));
const { values: args } = parseArgs({
  options: { parse: { type: "string" }, wheels: { type: "string" }, generated: { type: "string" }, seed: { type: "string" } },
});
const generated = Number(args.generated ?? 1000);
let seed = Number(args.seed ?? 1);
if (!args.parse || !args.wheels) {
  console.error("usage: differential.mjs --parse GRAPH_PARSE --wheels DIR [--generated N] [--seed S]");
  process.exit(2);
}

// Hand-written cases, and the deviations: `- \`case\`: why` lines.
const cases = readdirSync(join(here, "cases"))
  .filter((f) => f.endsWith(".md"))
  .sort()
  .map((f) => ({ name: basename(f, ".md"), body: readFileSync(join(here, "cases", f), "utf8") }));
const deviations = new Map(
  [...readFileSync(join(here, "DEVIATIONS.md"), "utf8").matchAll(/^- `([\w-]+)`: (.+)$/gm)].map((m) => [m[1], m[2]]),
);

// Generated bodies: lines drawn from the format's parts, edge cases included.
function random() {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
}
const pick = (items) => items[Math.floor(random() * items.length)];
const words = ["auth", "JWT", "cache", "Redis", "café", "日本語", "naïve", "v2.0", "a_b", "x-y", "emoji🙂", "e-mail@host", "50%"];
const phrase = () => Array.from({ length: 1 + Math.floor(random() * 4) }, () => pick(words)).join(" ");
const tag = () => pick(["#tag", "#a#b", "#日本", "#x-y", "#", "#v2"]);
const context = () => pick(["", "", " (why)", " (nested (x))", " ()", " (#inside)", " (a) b", " (unclosed"]);
const category = () => pick(["idea", "decision", "fact", "a", "x", "1", "00:01", "1:02:03.5", "0:01 - 0:02", "/", "?", "two words", " spaced ", "", "日本"]);
const relType = () => pick(["implements", "depends_on", '"based on"', "'part of'", "two words", '""', "uses:"]);
const target = () => pick(["Target", "Multi Word", "proj::note", "proj::/deep/note", "a/b", "./rel.md", " padded ", "", "Café", "a [[b]] c"]);
const href = () => pick(["notes/a.md", "https://x.org/a", "../up.md#f", "a%20b.md", "mailto:x@y", "dir/", "<with space.md>", "/root.md?q=1", "#frag", "C:x.md", "//host/a.md", "a\\b.md"]);
const item = () => pick(["- ", "- ", "* ", "+ ", "1. ", "  - ", "    - "]);
const inline = () =>
  pick([
    () => phrase(),
    () => `${phrase()} ${tag()}`,
    () => `[[${target()}]]`,
    () => `${phrase()} [[${target()}]] ${phrase()}`,
    () => `[${phrase()}](${href()})`,
    () => "`[[code]]`",
    () => "\\[[escaped]]",
    () => `**[[${target()}]]**`,
  ])();
const line = () =>
  pick([
    () => `${item()}[${category()}] ${inline()}${pick(["", " " + tag()])}${context()}`,
    () => `${item()}${inline()} ${tag()}${context()}`,
    () => `${item()}${relType()} [[${target()}]]${context()}`,
    () => `${item()}${relType()} [[${target()}]] ${pick(["and [[Other]]", "#bm:links_to", "`[[c]]` #bm:links_to", "text"])}`,
    () => `${item()}[${pick([" ", "x", "-", "X", "/"])}] ${inline()} ${tag()}`,
    () => `${inline()} ${inline()}`,
    () => `${pick(["# ", "## ", "### "])}${inline()}${pick(["", " ##"])}`,
    () => `> ${item()}[${category()}] ${inline()} [[${target()}]]`,
    () => `\`\`\`\n- [idea] ${inline()} [[InCode]]\n\`\`\``,
    () => `    - [idea] indented code [[Indented]]`,
    () => `${item()}[${category()}]\n  ${inline()}`,
    () => `${inline()}\n${inline()}`,
    () => "",
  ])();
for (let i = 0; i < generated; i++) {
  const lines = Array.from({ length: 2 + Math.floor(random() * 10) }, line);
  cases.push({ name: `generated-${i}`, body: lines.join(random() < 0.1 ? "\r\n" : "\n") + "\n" });
}

// basic-memory, in Pyodide (a CPython that meets its Python requirement).
const { loadPyodide } = await import(join(here, "../hosts/node_modules/pyodide/pyodide.mjs"));
const py = await loadPyodide();
const wheelDir = resolve(args.wheels);
py.FS.mkdirTree("/wheels");
py.FS.mount(py.FS.filesystems.NODEFS, { root: wheelDir }, "/wheels");
py.FS.writeFile("/oracle.py", readFileSync(join(here, "oracle.py"), "utf8"));
py.runPython("import sys; sys.path.insert(0, '/')");
const wheels = readdirSync(wheelDir).filter((f) => f.endsWith(".whl")).map((f) => `/wheels/${f}`);
const oracle = py.pyimport("oracle");
let theirs;
try {
  theirs = JSON.parse(oracle.run(JSON.stringify(wheels), JSON.stringify(cases.map((c) => c.body))));
} catch (error) {
  // Pyodide's errors carry the Python traceback; its stack is minified JavaScript.
  console.error(`basic-memory's parser failed:\n${error.message}`);
  process.exit(1);
}

const ran = spawnSync(args.parse, { input: JSON.stringify(cases.map((c) => c.body)), maxBuffer: 1 << 30 });
if (ran.status !== 0) {
  console.error(`${args.parse} failed: ${ran.stderr}`);
  process.exit(1);
}
const ours = JSON.parse(ran.stdout);

// Compare.
// Key order differs between the two JSON writers; values and list order must not.
const sorted = (o) => (Array.isArray(o) ? o.map(sorted) : o && typeof o === "object" ? Object.fromEntries(Object.keys(o).sort().map((k) => [k, sorted(o[k])])) : o);
const canonical = (v) => JSON.stringify(sorted(v));
let observations = 0, relations = 0, agreed = 0;
const unlisted = [], stale = [], listed = [];
cases.forEach((c, i) => {
  observations += theirs[i].observations.length;
  relations += theirs[i].relations.length;
  const same = canonical(theirs[i]) === canonical(ours[i]);
  if (same) agreed += 1;
  if (deviations.has(c.name)) (same ? stale : listed).push(c.name);
  else if (!same) unlisted.push(i);
});
const hand = cases.length - generated;
console.log(
  `graph parser differential: ${cases.length} bodies (${hand} hand-written, ${generated} generated, seed ${args.seed ?? 1}), ` +
    `basic-memory found ${observations} observations and ${relations} relations; ${agreed} bodies read the same, ` +
    `${listed.length} differ as listed in DEVIATIONS.md`,
);
for (const i of unlisted.slice(0, 5)) {
  console.log(`\n--- ${cases[i].name} differs:\n${JSON.stringify(cases[i].body)}\nbasic-memory: ${JSON.stringify(theirs[i])}\nmemcap:       ${JSON.stringify(ours[i])}`);
}
for (const name of stale) console.log(`listed in DEVIATIONS.md but read the same now: ${name}`);
if (unlisted.length || stale.length) {
  console.log(`\nFAIL: ${unlisted.length} bodies differ without a listed deviation, ${stale.length} listed cases no longer differ`);
  process.exit(1);
}
