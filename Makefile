# One task runner. `make report` and `make test` work on a fresh clone: each creates the
# virtual environment and installs the project first.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: install report test bench lint docs clean

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,pdf]'
	touch $(STAMP)

report: $(STAMP)
	mkdir -p reports
	$(BIN)/tco compare --format table --output reports/example.txt
	$(BIN)/tco compare --format json --output reports/example.json
	$(BIN)/tco compare --format csv --output reports/example.csv
	SOURCE_DATE_EPOCH=$$(git log -1 --format=%ct 2>/dev/null || date +%s) $(BIN)/tco report \
	  --xlsx reports/example.xlsx --html reports/example.html --pdf reports/example.pdf
	SOURCE_DATE_EPOCH=$$(git log -1 --format=%ct 2>/dev/null || date +%s) $(BIN)/tco report \
	  --html reports/example.zh.html --xlsx reports/example.zh.xlsx --lang zh
	@echo "wrote reports/example.*"

test: $(STAMP)
	$(BIN)/python -m pytest -q

bench: $(STAMP)
	$(BIN)/python bench/run.py

docs: $(STAMP)
	$(BIN)/python tests/test_cli_reference.py

lint: $(STAMP)
	$(BIN)/python -m pip install --quiet ruff
	$(BIN)/ruff check tco tests bench

clean:
	rm -rf $(VENV) build *.egg-info
