# uno-table build and check targets.
#
#   make test      system packages, venv, lint, typecheck, pytest (what CI runs)
#   make demo      run the demo ($(DEMO_CMD))
#   make bench     install the benchmark extras and run bench/engine.py and bench/bots.py
#   make firmware  build the bridge firmware (ELF and HEX) and print its flash and RAM use
#   make clean     remove the venv, caches and build output

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.stamp
BENCH_STAMP := $(VENV)/.bench-stamp

# Directories to lint; the ones that do not exist (yet) are skipped.
LINT_PATHS := $(wildcard table firmware_bridge sim tests bench hw_tests)

# What `make demo` runs: bots play one round on a simulated table at a readable pace, with a
# voice where this machine has audio (captions otherwise). Add --fast for a whole match at once.
DEMO_CMD ?= $(BIN)/uno-table demo --players 3 --rounds 1 --seed 1

.PHONY: all venv sysdeps lint typecheck test demo bench clean

all: test

# ---------------------------------------------------------------- environment

# The venv is rebuilt whenever pyproject.toml changes.
venv: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

# Debian packages the tests need (espeak-ng, AVR toolchain, simavr, socat).
sysdeps:
	bash .ci/sysdeps.sh

# ---------------------------------------------------------------- checks

lint: venv
	$(BIN)/ruff check $(LINT_PATHS)

# Files and strictness come from [tool.mypy] in pyproject.toml.
typecheck: venv
	$(BIN)/mypy

# Runs pytest in parallel only when pytest-xdist happens to be installed.
test: sysdeps venv lint typecheck
	@if $(BIN)/python -c 'import xdist' 2>/dev/null; then xdist='-n auto'; else xdist=''; fi; \
	echo "$(BIN)/python -m pytest $$xdist"; \
	$(BIN)/python -m pytest $$xdist

# ---------------------------------------------------------------- running

demo: sysdeps venv
	$(DEMO_CMD)

$(BENCH_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[bench]'
	touch $@

bench: $(BENCH_STAMP)
	$(BIN)/python bench/engine.py
	$(BIN)/python bench/bots.py

# ---------------------------------------------------------------- firmware bridge

.PHONY: firmware bench-bridge

# firmware_bridge/firmware/build/bridge.{elf,hex}; flash with `make -C firmware_bridge/firmware flash`
firmware:
	$(MAKE) --no-print-directory -C firmware_bridge/firmware

bench-bridge: venv firmware
	$(BIN)/python bench/bridge.py

# ---------------------------------------------------------------- cleaning

clean:
	rm -rf $(VENV) build dist *.egg-info .mypy_cache .ruff_cache .pytest_cache .hypothesis
	rm -rf firmware_bridge/firmware/build sim/hardware/build
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
