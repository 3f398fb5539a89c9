# Quick start: `make demo` and `make test` set themselves up on first use.
PYTHON ?= $(shell for p in python3.13 python3.12 python3.11 python3; do \
	command -v $$p >/dev/null 2>&1 && $$p -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
	>/dev/null 2>&1 && { command -v $$p; break; }; done)
PYTHON := $(PYTHON)
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck bench failover clean bytecode docs docs-build reference

$(STAMP): pyproject.toml
	@test -n "$(PYTHON)" || { echo "Python 3.11 or newer is required" >&2; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@# Bytecode of the dependencies, written once: with PYTHONDONTWRITEBYTECODE set (as some CI
	@# images do) every process would otherwise compile them again at each start. A file that
	@# does not compile here is compiled at import, as before.
	-@$(BIN)/python -m compileall -q -j 0 -o 0 -o 1 $$($(BIN)/python -c \
		'import sysconfig; print(sysconfig.get_paths()["purelib"])') >/dev/null 2>&1
	@touch $(STAMP)

# The project's own bytecode, brought up to date before each job (only changed files).
bytecode: $(STAMP)
	@$(BIN)/python -m compileall -q -j 0 -o 0 -o 1 ledger projections ops tests >/dev/null

demo: bytecode
	$(BIN)/ledger demo

test: bytecode
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# ruff, and the layers as contracts (pyproject.toml [tool.importlinter]).
lint: $(STAMP)
	$(BIN)/ruff check ledger projections tests ops
	$(BIN)/lint-imports

typecheck: $(STAMP)
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[bench]'
	$(BIN)/python ops/bench/run_all.py

# The docs site (docs/, mkdocs.yml): served with live reload on http://127.0.0.1:8001/, or built
# into site/ as CI builds it (a broken link or a page left out of the navigation fails).
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve --dev-addr 127.0.0.1:8001

docs-build: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

# The generated pages (games and settings, the CLI, the HTTP API), written again from the code.
reference: bytecode
	$(BIN)/python -m ops.docs.gen_reference

# Failover drill: a primary and a synchronous standby on this machine, two services, bots;
# the primary is killed mid-load and the standby promoted (ops/ha/failover.py).
failover: bytecode
	$(BIN)/python ops/ha/failover.py

clean:
	rm -rf $(VENV) var out site .pytest_cache .mypy_cache .ruff_cache .hypothesis
