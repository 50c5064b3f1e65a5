# One obvious command for each habit. `make help` lists them.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python

.DEFAULT_GOAL := help
.PHONY: help venv dev test lint bench bench-ns2 pgo docs reference validate clean

help: ## list the targets
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-9s %s\n", $$1, $$2}'

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q "maturin>=1.5,<2" pytest ruff mypy

venv: $(PY) ## create .venv with maturin and the test tools

dev: $(PY) ## build the core (debug) into .venv as an editable install
	. $(VENV)/bin/activate && maturin develop --extras dev

test: ## the full CI job: fmt, clippy, cargo test, build, ruff, mypy, stubtest, pytest
	bash .ci/run

lint: $(PY) ## cargo fmt/clippy, ruff, mypy (no build)
	cargo fmt --all --check
	cargo clippy --workspace --all-targets -- -D warnings
	$(VENV)/bin/ruff check python tests bench validation
	$(VENV)/bin/ruff format --check python tests bench validation
	$(VENV)/bin/mypy python/lastmile tests bench validation

bench: $(PY) ## callgrind gate (fails above bench/callgrind_baseline.json), criterion, 10 MB/1 GB runs, the CLI, 1-10,000 flows
	cargo build -q --release -p lastmile-core --example whole_run --example bench_run
	$(PY) bench/callgrind_gate.py
	cargo bench -p lastmile-core --bench engine
	cargo run -q --release -p lastmile-core --example whole_run -- 10MB 10
	cargo run -q --release -p lastmile-core --example whole_run -- 1GB 1
	. $(VENV)/bin/activate && maturin develop --release --extras dev
	$(PY) bench/whole_run.py
	cargo build -q --release -p lastmile-core --example many_flows
	$(PY) bench/many_flows.py

bench-ns2: $(PY) ## lastmile against ns-2.35 (`ns`), whole process, on four scenarios (docs/performance.md)
	. $(VENV)/bin/activate && maturin develop --release --extras dev
	cargo build -q --release -p lastmile-core --example bench_run
	cargo build -q --release -p lastmile-cli
	$(PY) bench/vs_ns2.py

pgo: ## lastmile-run (target/pgo/release) and the extension (.venv) built with profiles of the seeds' experiments, checked
	. $(VENV)/bin/activate && $(PY) bench/pgo.py --python

docs: ## regenerate docs/: reproductions (.md and index.html; full runs, ~70 s), scenario reference
	$(VENV)/bin/lastmile reproduce all --out out/reproduce --docs docs; test $$? -le 1
	$(VENV)/bin/lastmile report out/reproduce --out docs/reproductions/index.html
	$(VENV)/bin/lastmile schema --markdown > docs/scenario-reference.md

reference: ## regenerate docs/scenario-reference.md from the JSON Schema (after `make dev`)
	$(VENV)/bin/lastmile schema --markdown > docs/scenario-reference.md

validate: ## the validation suite against ns-2.35 and ns-3.44 (installs them if it can; hours) -> docs/validation.md
	. $(VENV)/bin/activate && maturin develop --release --extras dev
	$(PY) -m validation.suite

clean: ## remove build outputs and caches
	cargo clean
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache out python/lastmile/_core*.so
