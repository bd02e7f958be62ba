# UnifiedCache — the commands a newcomer needs. `make demo` and `make test` install what is missing.
SWIFT ?= swift
SWIFT_FLAGS ?= -Xswiftc -warnings-as-errors

.PHONY: demo test lint format bench deps build docker-check docs asan tsan example example-smoke bench-bff fuzz fuzz-smoke \
	integrations-test integrations-bench

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

# `make example`: the Hummingbird BFF of Examples/HummingbirdBFF (its own package: Hummingbird is its dependency,
# not the library's) against the bank fixture, until Ctrl-C; `make example FLEET=1`: two replicas and a redis-server.
# `make example-smoke`: its smoke test over real HTTP, one replica, then a fleet of two sharing a real Redis.
# `make bench-bff`: wrk against it: cached, its floor (the same bytes from a constant), a two-replica fleet, and
# BFF_CACHE=off, in one run.
example: deps
	scripts/run-example.sh

example-smoke: deps
	scripts/example-smoke.sh

bench-bff:
	@scripts/ensure-deps.sh --bench
	scripts/bench-bff.sh

# `make integrations-test`: builds and tests Integrations/ (swift-log, swift-metrics, swift-distributed-tracing and
# ServiceLifecycle integrations; its own package and .build). `make integrations-bench`: ns per cache hit with them.
integrations-test: deps
	cd Integrations && $(SWIFT) build --build-tests $(SWIFT_FLAGS)
	cd Integrations && $(SWIFT) test --skip-build

integrations-bench: deps
	cd Integrations && $(SWIFT) run -c release unified-cache-integrations-bench

# `make asan` / `make tsan`: the tests under AddressSanitizer (+ leaks) or ThreadSanitizer, each in its own scratch
# path (.build-asan, .build-tsan); any sanitizer report fails the target (scripts/sanitize.sh).
asan: deps
	scripts/sanitize.sh asan

tsan: deps
	scripts/sanitize.sh tsan

# `make fuzz`: every fuzz target (Fuzz/, scripts/fuzz.sh) under libFuzzer + AddressSanitizer for FUZZ_SECONDS each
# (FUZZ_TARGETS to pick some); `make fuzz-smoke`: the same, briefly, as CI runs it. A crash, leak or broken invariant
# fails the target and leaves its input in .build-fuzz/artifacts/<target>/.
FUZZ_SECONDS ?= 60
FUZZ_SMOKE_SECONDS ?= 10
FUZZ_TARGETS ?=

fuzz: deps
	scripts/fuzz.sh --seconds $(FUZZ_SECONDS) $(FUZZ_TARGETS)

fuzz-smoke: deps
	scripts/fuzz.sh --seconds $(FUZZ_SMOKE_SECONDS) $(FUZZ_TARGETS)

EXAMPLE_SOURCES := Examples/HummingbirdBFF/Package.swift Examples/HummingbirdBFF/Sources
INTEGRATION_SOURCES := Integrations/Package.swift Integrations/Sources Integrations/Tests

lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests Fuzz $(EXAMPLE_SOURCES) $(INTEGRATION_SOURCES)

format:
	$(SWIFT) format format --in-place --recursive Package.swift Sources Tests Fuzz $(EXAMPLE_SOURCES) $(INTEGRATION_SOURCES)

bench:
	@scripts/ensure-deps.sh --bench
	scripts/bench.sh $(SUITE)

docker-check:
	@scripts/ensure-deps.sh --ci
	docker-compose -f docker/compose.yml config -q

# `make docs`: symbol graphs of the seven library modules, then one DocC archive per catalog in $(DOCS_OUTPUT).
# Fails on any warning in a catalog (a symbol link that does not resolve, a broken topic); warnings in source doc
# comments are listed and fail only with DOCC_FLAGS=--warnings-as-errors.
DOCS_SCRATCH ?= .build/docs-build
DOCS_OUTPUT ?= .build/docs
DOCC ?= $(dir $(realpath $(shell command -v $(SWIFT))))docc
DOCC_FLAGS ?=
DOC_MODULES := CurlHTTP CacheCore RESTCache GraphQLLanguage GraphQLCache UnifiedCache RedisReplication

docs: deps
	@mkdir -p $(DOCS_SCRATCH)/symbol-graphs $(DOCS_OUTPUT)
	@# UnifiedCache and RedisReplication are two tops (the Redis module depends on CacheCore's seams, not on the
	@# facade): building both emits every library module's graph.
	for top in UnifiedCache RedisReplication; do \
		$(SWIFT) build --scratch-path $(DOCS_SCRATCH) --target $$top $(SWIFT_FLAGS) -Xswiftc -emit-symbol-graph \
			-Xswiftc -emit-symbol-graph-dir -Xswiftc $(abspath $(DOCS_SCRATCH))/symbol-graphs || exit 1; \
	done
	@failed=0; for module in $(DOC_MODULES); do \
		graphs=$(DOCS_SCRATCH)/graphs/$$module; log=$(DOCS_SCRATCH)/$$module.docc.log; \
		rm -rf $$graphs && mkdir -p $$graphs; \
		if [ ! -f $(DOCS_SCRATCH)/symbol-graphs/$$module.symbols.json ]; then \
			echo "$$module: no symbol graph; remove $(DOCS_SCRATCH) and run make docs again"; failed=1; continue; fi; \
		cp $(DOCS_SCRATCH)/symbol-graphs/$$module.symbols.json $$graphs/; \
		for extension in $(DOCS_SCRATCH)/symbol-graphs/$$module@*.symbols.json; do \
			[ -f "$$extension" ] && cp "$$extension" $$graphs/; done; \
		if ! $(DOCC) convert Sources/$$module/$$module.docc --additional-symbol-graph-dir $$graphs \
			--output-path $(DOCS_OUTPUT)/$$module.doccarchive --ide-console-output $(DOCC_FLAGS) > $$log 2>&1; then \
			cat $$log; echo "$$module: docc failed"; failed=1; continue; fi; \
		grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error):' $$log | sort -u > $$log.diagnostics || true; \
		in_catalog=$$(grep -c '\.docc/' $$log.diagnostics || true); \
		in_sources=$$(grep -vc '\.docc/' $$log.diagnostics || true); \
		echo "$$module: $(DOCS_OUTPUT)/$$module.doccarchive ($$in_catalog catalog warnings, $$in_sources in doc comments)"; \
		sed 's/^/    /' $$log.diagnostics; \
		[ "$$in_catalog" = 0 ] && [ "$$in_sources" = 0 ] || failed=1; \
	done; exit $$failed
