# Zioncheck Table. `make run` plays a game; `make test` runs the tests; both install first.
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install run test bench clean

install: $(STAMP)

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: install
	$(VENV)/bin/zioncheck run

test: install
	$(VENV)/bin/pytest -q

bench: install
	$(PY) -m bench

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
