# The two commands: `make repro` builds the release from the embedded sample,
# `make test` runs the whole test suite. Both create/update .venv first.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(CURDIR)/$(VENV)/bin
CONSTRAINTS := requirements/constraints.txt
export PATH := $(BIN):$(PATH)
export GX_ANALYTICS_ENABLED := False
# The pipeline and the tests never download: models and data come from local paths.
OFFLINE := HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1

.PHONY: repro test bench lint venv venv-full clean release

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
	$(OFFLINE) dvc repro

test: $(VENV)/.full
	$(OFFLINE) pytest -q

bench: $(VENV)/.full
	$(OFFLINE) python benchmarks/run.py
	$(OFFLINE) python benchmarks/generation.py
	$(OFFLINE) python benchmarks/scale.py

# make release VERSION=X.Y.Z REPO=ORG/NAME [PRIVATE=ORG/NAME-private]
# Validate, push the data to the DVC remote, publish (one Hub commit + tag, hidden labels
# only to PRIVATE; release/CHANGELOG.md is written only once the Hub accepted it, so a
# failed step leaves the git tree clean and the command can simply be run again), then
# commit the changelog and tag the git tree.
release: $(VENV)/.base
	@test -n "$(VERSION)" -a -n "$(REPO)" || { echo "usage: make release VERSION=X.Y.Z REPO=ORG/NAME [PRIVATE=ORG/NAME]"; exit 2; }
	$(OFFLINE) dvc repro
	rucola validate
	dvc push
	rucola release publish --repo-id $(REPO) --version $(VERSION) $(if $(PRIVATE),--private-repo-id $(PRIVATE))
	git add release/CHANGELOG.md && git commit -m "Release v$(VERSION)" -- release/CHANGELOG.md
	git tag -a v$(VERSION) -m "Release v$(VERSION)"

lint: $(VENV)/.full
	ruff check .
	ruff format --check .

clean:
	rm -rf $(VENV)
