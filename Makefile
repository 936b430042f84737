# Zioncheck Table. `make run` plays a game; `make test` runs the tests; `make lint` checks types and style.
# Each installs first.
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install run test test-long lint bench clean

install: $(STAMP)

# setuptools tells of every editable install that maps packages to folders (pyproject.toml's package-dir) that a
# folder named like the package could shadow it: information only, and no folder here is named `zioncheck`.
QUIET_EDITABLE := PYTHONWARNINGS="ignore:Editable installation"

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(QUIET_EDITABLE) $(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: install
	$(VENV)/bin/zioncheck run

# The tests wait on servers and subprocesses much of the time: four workers (pytest-xdist) share even two cores
# well, each test starting its own servers and services.
test: install
	$(VENV)/bin/pytest -q -m "not long" -n 4

# Whole games through kills and failovers (the `long` marker): minutes, so apart from `make test`.
test-long: install
	$(VENV)/bin/pytest -q -m long

# mypy: strict on domain/ and contracts/, its defaults on application/ and bots/ (pyproject.toml, [tool.mypy]).
# ruff: every folder.
LINTED := domain contracts application bots client cli bench services tests

lint: install
	mkdir -p .lint/zioncheck && for layer in contracts domain application bots; do ln -sfn ../../$$layer .lint/zioncheck/$$layer; done
	$(VENV)/bin/mypy
	$(VENV)/bin/ruff check $(LINTED)

BENCH_STAMP := $(VENV)/.bench-installed

$(BENCH_STAMP): $(STAMP) pyproject.toml
	$(QUIET_EDITABLE) $(PY) -m pip install --quiet -e '.[dev,bench]'
	touch $(BENCH_STAMP)

# Every benchmark, each ending PASS or FAIL; `$(PY) -m bench peer` (or any NAME) runs one by name once this has
# installed the extra.
bench: install $(BENCH_STAMP)
	$(PY) -m bench

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .mypy_cache .ruff_cache .lint
