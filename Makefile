# importprof — two commands on a fresh machine: `make demo`, `make test`.
SHELL := /bin/bash
export PATH := $(HOME)/.cargo/bin:$(PATH)
VENV := .venv
PY := $(VENV)/bin/python

.PHONY: setup demo test test-fast lint bench clean

setup:            ## idempotent: apt tools, hyperfine >= 1.20, .venv, native parts
	bash scripts/setup.sh

demo: setup       ## the main job: start-up time of this machine's python3 in each variant
	$(VENV)/bin/importprof startup

test: setup       ## the whole suite (real interpreters, hyperfine, strace, builds), one worker per core
	$(PY) -m pytest -q -n auto --dist loadfile

# the quick lane starts no process (conftest refuses one), so it may let pytest keep its rewritten
# test modules: under PYTHONDONTWRITEBYTECODE=1 (this machine's, many containers') each worker
# rewrote every test module's asserts again, 14 of its 17 s of collection
test-fast:        ## unit tests only (no set-up): parsers, statistics, renderers on fixtures; no process started
	env -u PYTHONDONTWRITEBYTECODE IMPORTPROF_TEST_FAST=1 $(PY) -m pytest -q -m "not slow" -n auto

# ruff and mypy (their configuration: pyproject.toml), rustfmt and clippy over the crates
# (scripts/lint-rust.sh); installed by make setup (the test extras, scripts/setup.d/26-rust-lint.sh)
lint:             ## static checks: ruff, mypy, cargo fmt --check, cargo clippy
	$(VENV)/bin/ruff check --no-cache .
	$(VENV)/bin/mypy
	bash scripts/lint-rust.sh

bench: setup      ## benchmarks print ratios measured side by side (not tests)
	@for b in benchmarks/bench_*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

clean:
	rm -rf $(VENV) build *.egg-info oxidized_builds/build .mypy_cache .ruff_cache
