# Two entry points for a fresh machine with Python 3.11 and make:
#   make demo  - create .venv, install Cairn (with its MCP server), run the demo on a local SQLite file
#   make test  - create .venv, install with the test, mcp and web extras, lint and type-check, run the whole suite
#                (as root with apt-get, it first installs Debian's Chromium for the browser test if absent)
#   make lint  - ruff and mypy only (configured in pyproject.toml)
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin

.PHONY: demo test lint clean chromium postgres-server

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[mcp]'
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test,mcp,semantic,web,postgres]'
	touch $@

demo: $(VENV)/.installed
	PATH="$(CURDIR)/$(BIN):$$PATH" bash scripts/demo.sh

lint: $(VENV)/.installed-test
	$(BIN)/ruff check
	$(BIN)/mypy

# The browser test of `cairn ui` drives Debian's Chromium (/usr/bin/chromium). Installed here
# when absent and possible (root, apt-get); otherwise that one test is skipped with the reason.
chromium:
	@command -v chromium >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 \
	  && { apt-get install -y -q chromium chromium-driver >/dev/null 2>&1 \
	       || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q chromium chromium-driver >/dev/null 2>&1; }; } \
	  || echo "make: could not install chromium; the browser test will be skipped"; }


# The PostgreSQL tests start their own throwaway server (tests/testkit/pgserver.py) from
# Debian's packages, installed here when absent and possible; otherwise they are skipped
# and pytest says why.
postgres-server:
	@ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 || command -v pg_ctl >/dev/null 2>&1 \
		|| { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 \
		     && DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql >/dev/null; } \
		|| echo "PostgreSQL not installed: its tests will be skipped"

test: lint chromium postgres-server
	$(BIN)/python -m pytest -rs

clean:
	rm -rf $(VENV) .cairn-demo build src/*.egg-info .pytest_cache .hypothesis .ruff_cache .mypy_cache
