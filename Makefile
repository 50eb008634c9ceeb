# Two entry points for a fresh machine with Python 3.11 and make:
#   make demo  - create .venv, install Cairn, run the demo on a local SQLite file
#   make test  - create .venv, install with test extras, run the whole suite
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin

.PHONY: demo test clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

demo: $(VENV)/.installed
	PATH="$(CURDIR)/$(BIN):$$PATH" bash scripts/demo.sh

test: $(VENV)/.installed-test
	$(BIN)/python -m pytest

clean:
	rm -rf $(VENV) .cairn-demo build src/*.egg-info .pytest_cache .hypothesis
