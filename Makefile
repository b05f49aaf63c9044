# The two commands: `make repro` builds the release from the embedded sample,
# `make test` runs the whole test suite. Both create/update .venv first.
# Python 3.11, 3.12 or 3.13: PYTHON is the interpreter that creates the venv, VENV where it
# goes, so each version gets its own (`make repro PYTHON=python3.13 VENV=.venv-3.13`).
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(abspath $(VENV))/bin
CONSTRAINTS := requirements/constraints.txt
export PATH := $(BIN):$(PATH)
export GX_ANALYTICS_ENABLED := False
# The pipeline and the tests never download: models and data come from local paths.
OFFLINE := HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1

.PHONY: repro test test-fast plots bench lint generate venv venv-full venv-python clean release

# A PYTHON given on the command line (or in the environment) must be the one VENV was made
# with: an existing venv of another version is an error, never silently used instead.
PYVER := import sys; print("%d.%d" % sys.version_info[:2])
venv-python:
ifneq ($(origin PYTHON),file)
	@want=$$($(PYTHON) -c '$(PYVER)') || { echo "error: PYTHON=$(PYTHON) does not run" >&2; exit 1; }; \
	have=$$(test ! -x $(BIN)/python || $(BIN)/python -c '$(PYVER)'); \
	test -z "$$have" -o "$$have" = "$$want" || { echo "error: $(VENV) has Python $$have, PYTHON=$(PYTHON) is $$want: name another VENV= or run make clean VENV=$(VENV)" >&2; exit 1; }
endif

$(VENV)/.base: pyproject.toml $(CONSTRAINTS) | venv-python
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --disable-pip-version-check -c $(CONSTRAINTS) -e .
	touch $@

# The GPU stack (torch CPU build here, transformers, ctranslate2, ray), the dev tools,
# vl-convert (offline vega, for the tests of `make plots`) and the Japanese and Chinese
# tokenizers (the tests of their language profiles).
$(VENV)/.full: $(VENV)/.base
	$(BIN)/python -m pip install -q --disable-pip-version-check -c $(CONSTRAINTS) -e '.[gpu,dev,plots,ja,zh]'
	touch $@

# vega, vega-lite and vega-embed offline (vl-convert-python) for `make plots`.
$(VENV)/.plots: $(VENV)/.base
	$(BIN)/python -m pip install -q --disable-pip-version-check -c $(CONSTRAINTS) -e '.[plots]'
	touch $@

venv: $(VENV)/.base
venv-full: $(VENV)/.full

repro: $(VENV)/.base
	$(OFFLINE) dvc repro

# Every test, on every core (pytest-xdist; a module's tests stay on one worker, so its
# module fixtures are built once; the long modules go first: LONG_MODULES in
# tests/long_modules.py). `make test-fast`: the edit-test loop, without the tests
# marked slow: over about 2 s each (real DVC repositories and pipelines, the published corpus,
# GX validation runs, benchmarks, browsers, servers).
PYTEST_PARALLEL := -n auto --dist loadscope --no-loadscope-reorder
# `make test` names its 20 slowest tests (the suite's budget: docs/testing.md).
test: $(VENV)/.full
	$(OFFLINE) pytest -q $(PYTEST_PARALLEL) --durations=20

test-fast: $(VENV)/.full
	$(OFFLINE) pytest -q $(PYTEST_PARALLEL) -m "not slow"

# `dvc plots show` readable offline: DVC's page loads vega from a CDN, so its template is
# replaced by one with vega inlined from the pinned vl-convert wheel (rucola/offline_plots.py).
# Writes dvc_plots/index.html; open it in a browser, no network needed.
PLOTS_TEMPLATE := .cache/dvc_plots_template.html
plots: $(VENV)/.plots
	python -m rucola.offline_plots $(PLOTS_TEMPLATE)
	dvc plots show --html-template $(PLOTS_TEMPLATE)

# The sample's cold and no-op builds with the bookkeeping share, now and with the code of
# BENCH_BEFORE (the commit before issue 44 made the bookkeeping stages cheap).
BENCH_BEFORE ?= 45c3e85
bench: $(VENV)/.full
	$(OFFLINE) python benchmarks/build.py --before $(BENCH_BEFORE)
	$(OFFLINE) python benchmarks/run.py
	$(OFFLINE) python benchmarks/generation.py
	$(OFFLINE) python benchmarks/scale.py
	$(OFFLINE) python benchmarks/homoglyphs.py

# make release VERSION=X.Y.Z REPO=ORG/NAME [PRIVATE=ORG/NAME-private]
# Validate, push the data to the DVC remote, publish (one Hub commit + tag, hidden labels
# only to PRIVATE; release/CHANGELOG.md is written only once the Hub accepted it, so a
# failed step up to here leaves the git tree clean and the command can simply be run
# again), keep the published release in data/releases/vX.Y.Z/ (public folder, CSV layout,
# private gold and ledger; the next version pins it: its ids are permanent) as a DVC-tracked
# input (data/releases/.gitignore names it: git never holds it, DVC sees its .dvc file), then
# commit the changelog with its .dvc file and tag the git tree. `dvc push` sends each file to
# the remote its access names (.dvc/config: public, and private, the default). Should a step
# after publish fail, run the remaining lines by hand: the version is already on the Hub.
KEPT := data/releases/v$(VERSION)
release: $(VENV)/.base
	@test -n "$(VERSION)" -a -n "$(REPO)" || { echo "usage: make release VERSION=X.Y.Z REPO=ORG/NAME [PRIVATE=ORG/NAME]"; exit 2; }
	$(OFFLINE) dvc repro
	rucola validate
	dvc push
	rucola release publish --repo-id $(REPO) --version $(VERSION) $(if $(PRIVATE),--private-repo-id $(PRIVATE))
	rucola release keep --version $(VERSION)
	dvc add $(KEPT) && dvc push $(KEPT).dvc
	git add release/CHANGELOG.md $(KEPT).dvc data/releases/.gitignore && git commit -m "Release v$(VERSION)" -- release/CHANGELOG.md $(KEPT).dvc data/releases/.gitignore
	git tag -a v$(VERSION) -m "Release v$(VERSION)"

# Rewrite every file derived from the code and the schema: the code fingerprints under
# reports/code/ (as dvc repro's fingerprint_code does), params.yaml, the presets in configs/,
# docs/params.md's table.
generate: $(VENV)/.base
	$(OFFLINE) python -m rucola.dev generate

lint: $(VENV)/.full
	ruff check .
	ruff format --check .
	$(OFFLINE) python -m rucola.dev check

clean:
	rm -rf $(VENV)
