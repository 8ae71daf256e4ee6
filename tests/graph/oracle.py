"""basic-memory's own reading of note bodies, run inside Pyodide by
differential.mjs: its markdown-it observation and relation plugins and its
markdown-link rule, driven the way `entity_parser.parse` drives them
(that function itself needs pydantic, which Pyodide cannot load offline)."""

import json
import sys
import types


def load(wheels):
    """Imports basic-memory's markdown modules from its wheel, skipping the
    package __init__ files (they pull in the whole server)."""
    package = next(w for w in wheels if "basic_memory-" in w)
    sys.path[:0] = wheels
    for name in ("basic_memory", "basic_memory.markdown"):
        module = types.ModuleType(name)
        module.__path__ = [package + "/" + name.replace(".", "/")]
        sys.modules[name] = module
    # basic_memory.utils imports its telemetry, which imports logfire: the
    # parser uses neither.
    sys.modules["logfire"] = types.ModuleType("logfire")
    sys.modules["logfire"].__getattr__ = lambda _name: (lambda *a, **k: None)
    from markdown_it import MarkdownIt
    from basic_memory.markdown.plugins import observation_plugin, relation_plugin
    from basic_memory.markdown.path_links import markdown_link_path

    md = MarkdownIt().use(observation_plugin).use(relation_plugin)

    def read(body):
        observations, relations = [], []
        for token in md.parse(body):
            for child in token.children or []:
                if child.type == "link_open":
                    href = child.attrGet("href")
                    target = markdown_link_path(href) if href else None
                    if target is not None:
                        relations.append({"type": "links_to", "target": target, "context": None})
            meta = token.meta or {}
            if "observation" in meta:
                o = meta["observation"]
                observations.append({
                    "category": o["category"], "content": o["content"],
                    "tags": o["tags"] or [], "context": o["context"],
                })
            for r in meta.get("relations", []):
                relations.append({"type": r["type"], "target": r["target"], "context": r.get("context")})
        return {"observations": observations, "relations": relations}

    return read


def run(wheels_json, bodies_json):
    read = load(json.loads(wheels_json))
    return json.dumps([read(body) for body in json.loads(bodies_json)])
