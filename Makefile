# uno-table build and check targets, for those who have make. `./uno demo` and `./uno test`
# (README) need only sh; the targets below call them.
#
#   make test      system packages, venv, lint, typecheck, pytest (./uno test: what CI runs)
#   make demo      the demo (./uno demo)
#   make venv      .venv with the test extra (./uno venv)
#   make bench     install the benchmark extras and run bench/engine.py and bench/bots.py
#   make firmware  build the bridge firmware (ELF and HEX) and print its flash and RAM use
#   make clean     remove the venv, caches and build output

VENV   := .venv
BIN    := $(VENV)/bin
BENCH_STAMP := $(VENV)/.bench-stamp

.PHONY: all venv sysdeps test demo bench clean

all: test

# ---------------------------------------------------------------- environment and checks

venv:
	./uno venv

# Debian packages the tests need (espeak-ng, AVR toolchain, simavr, ...).
sysdeps:
	sh .ci/sysdeps.sh test

test:
	./uno test

# ---------------------------------------------------------------- running

demo:
	./uno demo

$(BENCH_STAMP): pyproject.toml
	./uno venv
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
	find table -name '*.so' -delete; rm -f ./*__mypyc*.so   # an editable compiled build
