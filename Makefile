# The project's commands. Each target sets itself up from nothing (creates .venv,
# installs ragkit with its extras) and then acts. Set-up never pulls PyTorch/CUDA.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: setup test test-fast demo bench docs lint clean

$(STAMP): pyproject.toml Makefile ragkit/splitters/_wordpiece_c.c
	@# The web page tests drive Debian's chromium through Playwright (no browser is downloaded).
	@test -x /usr/bin/chromium || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -qq chromium chromium-driver)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[all,dev]'
	@$(BIN)/python -c "import importlib.util as u, sys; bad=[m for m in ('torch','sentence_transformers') if u.find_spec(m)]; sys.exit('set-up pulled ' + ', '.join(bad) + ' (forbidden)' if bad else 0)"
	touch $(STAMP)

setup: $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check ragkit tests benchmarks examples docs
	$(BIN)/ruff format --check ragkit tests benchmarks examples docs
	$(BIN)/mypy ragkit

test: $(STAMP) lint
	$(BIN)/python -m pytest

# The same minus the tests marked slow (each over ~20 s): for the edit-test loop.
test-fast: $(STAMP) lint
	$(BIN)/python -m pytest -m "not slow"

demo: $(STAMP)
	$(BIN)/python -m ragkit.demo

# The documentation site (MkDocs + Material + mkdocstrings) into site/; any warning fails it.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/python -m mkdocs build --strict --site-dir site

bench: $(STAMP)
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache site
