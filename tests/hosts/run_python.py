"""Serve `memcap call` lines with memcap.wasm in Python's wasmtime (PyPI
`wasmtime`, components through its C API): tool_use input JSON per line on
stdin, one {"content", "is_error"} line per input on stdout.

    python run_python.py memcap.wasm HOSTDIR < inputs.jsonl
"""

import json
import sys

from wasmtime import Engine, Store, WasiConfig
from wasmtime.component import Component, Linker

wasm, host_dir = sys.argv[1], sys.argv[2]
engine = Engine()
component = Component.from_file(engine, wasm)
linker = Linker(engine)
linker.add_wasip2()

store = Store(engine)
wasi = WasiConfig()
wasi.preopen_dir(host_dir, "/memories")
store.set_wasi(wasi)
instance = linker.instantiate(store, component)
interface = instance.get_export_index(store, "memcap:memory/tool@0.2.0")
call = instance.get_func(store, instance.get_export_index(store, "call", interface))

for line in sys.stdin:
    if not line.strip():
        continue
    result = call(store, line.rstrip("\n"))
    print(json.dumps({"content": result.content, "is_error": getattr(result, "is-error")},
                     ensure_ascii=False, separators=(",", ":")), flush=True)
