# The two commands: `make repro` builds the release from the embedded sample,
# `make test` runs the whole test suite. Both create/update .venv first.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(CURDIR)/$(VENV)/bin
CONSTRAINTS := requirements/constraints.txt
export PATH := $(BIN):$(PATH)
export GX_ANALYTICS_ENABLED := False
export HF_HUB_OFFLINE := 1
export HF_DATASETS_OFFLINE := 1

.PHONY: repro test bench lint venv venv-full clean

$(VENV)/.base: pyproject.toml $(CONSTRAINTS)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --disable-pip-version-check -c $(CONSTRAINTS) -e .
	touch $@

# The GPU stack (torch CPU build here, transformers, ctranslate2, ray) and the dev tools.
$(VENV)/.full: $(VENV)/.base
	$(BIN)/python -m pip install -q --disable-pip-version-check -c $(CONSTRAINTS) -e '.[gpu,dev]'
	touch $@

venv: $(VENV)/.base
venv-full: $(VENV)/.full

repro: $(VENV)/.base
	dvc repro

test: $(VENV)/.full
	pytest -q

bench: $(VENV)/.full
	python benchmarks/run.py

lint: $(VENV)/.full
	ruff check .
	ruff format --check .

clean:
	rm -rf $(VENV)
