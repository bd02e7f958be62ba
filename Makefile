# UnifiedCache — the commands a newcomer needs. `make demo` and `make test` install what is missing.
SWIFT ?= swift
SWIFT_FLAGS ?= -Xswiftc -warnings-as-errors

.PHONY: demo test lint format bench deps build docker-check

deps:
	@scripts/ensure-deps.sh

build: deps
	$(SWIFT) build $(SWIFT_FLAGS)

demo: deps
	$(SWIFT) run $(SWIFT_FLAGS) ucache-demo

test: deps
	python3 Fixtures/bank/test_server.py
	$(SWIFT) build --build-tests $(SWIFT_FLAGS)
	$(SWIFT) test --skip-build

lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests

format:
	$(SWIFT) format format --in-place --recursive Package.swift Sources Tests

bench:
	@scripts/ensure-deps.sh --bench
	scripts/bench.sh $(SUITE)

docker-check:
	@scripts/ensure-deps.sh --ci
	docker-compose -f docker/compose.yml config -q
