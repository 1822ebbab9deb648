# bloatlab developer entry points. On a fresh machine (Python >= 3.11 and a Rust toolchain),
# `make demo` and `make test` do all set-up themselves: venv, PyPI installs, maturin build.
.DEFAULT_GOAL := all
.PHONY: all build-dev test demo lint format stubtest clean

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
# maturin develop installs into this environment.
export VIRTUAL_ENV := $(abspath $(VENV))

all: lint test

$(PY):
	$(PYTHON) -m venv $(VENV)

# Build tooling and the project's dependencies (from pyproject.toml, with the test and dev extras).
$(VENV)/.deps: pyproject.toml | $(PY)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet "maturin>=1.7,<2"
	touch $@

build-dev: $(VENV)/.deps
	$(VENV)/bin/maturin develop --release --extras test,dev

test: build-dev
	cargo test --workspace --release
	$(VENV)/bin/pytest -q

demo: build-dev
	$(VENV)/bin/bloatlab run scenarios/demo.toml -o results/demo --plot
	@echo "plot: results/demo/overview.png"

lint: build-dev
	$(VENV)/bin/ruff check python tests tools
	$(VENV)/bin/ruff format --check python tests tools
	$(VENV)/bin/mypy
	cargo fmt --all --check
	cargo clippy --workspace --all-targets --release -- -D warnings

format: build-dev
	cargo fmt --all
	$(VENV)/bin/ruff check --fix python tests
	$(VENV)/bin/ruff format python tests

# Keeps python/bloatlab/_core.pyi honest against the built extension.
stubtest: build-dev
	$(PY) -m mypy.stubtest bloatlab._core

clean:
	rm -rf $(VENV) target results .pytest_cache .mypy_cache .ruff_cache
