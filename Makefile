# cardtable: the two Quick-start commands are `make demo` and `make test`.
# Each creates .venv with the packages it needs; `make test` also installs the
# Debian packages the integration tests use (mosquitto, chromium, espeak-ng) when it can.

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-dev

.PHONY: demo test lint typecheck check-all system-deps train firmware clean

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

demo: $(STAMP)
	$(VENV)/bin/cardtable demo

system-deps:
	@./scripts/system-deps.sh

test: $(STAMP) system-deps
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(PY) -m pytest

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

# Slow tests (soak, SIGKILL recovery over many kill points, long demos).
check-all: $(STAMP) system-deps
	$(PY) -m pytest -m 'slow or not slow'

# Training needs torch and ultralytics (the `train` extra) and the Debian card decks.
train: | $(VENV)/bin/python
	./scripts/train-deps.sh
	$(PY) -m pip install --quiet -e '.[dev,train]'
	$(VENV)/bin/cardtable vision train

# The ring firmware onto a Pico running MicroPython (docs/hardware.md): a running firmware is first
# asked to reboot into its REPL, then the modules go to :/firmware/ and main.py to the root.
FIRMWARE_PY := firmware/__init__.py firmware/framing.py firmware/ring.py firmware/app.py
firmware: $(STAMP)
	$(PY) -m pip install --quiet -e '.[firmware]'
	-$(PY) -m hardware.link --maintenance
	$(VENV)/bin/mpremote exec "import os; 'firmware' in os.listdir() or os.mkdir('firmware')" \
		+ cp $(FIRMWARE_PY) :firmware/ + cp firmware/main.py :main.py + reset

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
