# The two commands of the README: `make train` (main job) and `make test`.
# Each sets itself up: a virtualenv in .venv with the package and its extras,
# torch pinned to the CPU wheel through constraints.txt.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
CONFIG ?= configs/default.yaml

.PHONY: setup train test test-quick test-suites plugin dist docs results demo bench lint clean zoo

$(BIN)/.grove-installed: pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e ".[dev]"
	touch $@

setup: $(BIN)/.grove-installed

train: setup
	$(BIN)/python train.py --config $(CONFIG)

# Re-train the zoo (one policy per table, configs/zoo/) and write each card (scripts/zoo.py).
zoo: setup
	$(BIN)/python scripts/zoo.py

test: setup
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/python -m pytest -n 2

# The quick loop: everything but the tests marked slow (subprocesses, training runs,
# the browser, brute-force cross-checks); `make test` and CI run those too.
test-quick: setup
	$(BIN)/python -m pytest -n 2 -m "not slow"

# The multi-agent suites' examples and the RLlib backend (CI runs this after `test`).
# ray[rllib] pins its own gymnasium, so ray and RLlib's dependencies are named here.
test-suites: setup
	$(BIN)/python -m pip install --quiet -c constraints.txt -e ".[suites]" "ray==2.60.0" \
		pandas "tensorboardX>=1.9" "pyarrow>=17" fsspec dm_tree lz4 "ormsgpack>=1.7" scipy
	$(BIN)/python -m pytest tests/test_examples.py tests/training/test_rllib.py

# An agent from another package (examples/plugin_agent, entry-point group grove_env.agents):
# installed beside the package, its spec plays a gauntlet (CI runs this after `test`).
plugin: setup
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation ./examples/plugin_agent
	$(BIN)/python -m grove_env.agents.cli.gauntlet --agent example-plugin --players 4 \
		--opponents random,heuristic --games 40 --seed 0

# The release files: the wheel and the sdist into dist/, checked by twine (metadata,
# long description); CI runs this after `test`.
dist: setup
	rm -rf dist
	$(BIN)/python -m build --outdir dist .
	$(BIN)/python -m twine check --strict dist/*

# The documentation site, warnings as errors (CI runs this after the tests), into
# docs/_build/html. The results pages in it are written from docs/results/data by
# `make results` (scripts/results_pages.py), not by the build.
$(BIN)/.grove-docs-installed: $(BIN)/.grove-installed
	$(BIN)/python -m pip install --quiet -c constraints.txt -e ".[docs]"
	touch $@

docs: $(BIN)/.grove-docs-installed
	$(BIN)/python scripts/results_pages.py --check
	$(BIN)/python -m sphinx -W --keep-going -q -b html docs docs/_build/html
	@echo "docs: open docs/_build/html/index.html"

results: setup
	$(BIN)/python scripts/results_pages.py

demo: setup
	$(BIN)/python -m grove_env.agents.cli.tournament --rules classic --players 4 \
		--agents heuristic,random,random,random --games 400 --seed 0

bench: setup
	$(BIN)/python benchmarks/aec_throughput.py
	$(BIN)/python benchmarks/vector_throughput.py
	$(BIN)/python benchmarks/train_throughput.py
	$(BIN)/python benchmarks/heuristic_batch.py
	$(BIN)/python benchmarks/exploitability.py --players 2 3

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

clean:
	rm -rf $(VENV) build dist *.egg-info examples/plugin_agent/build .pytest_cache .ruff_cache .mypy_cache docs/_build
