#!/usr/bin/env bash
# make asan / make tsan: builds the package and its tests with a sanitizer in a scratch path of its own
# (.build-asan, .build-tsan: the normal .build stays untouched), runs the test targets, and fails when a test
# fails OR when the sanitizer printed any report, even if every test passed.
#   asan: AddressSanitizer with LeakSanitizer (leaks are reported when the test process exits).
#   tsan: ThreadSanitizer; modules are compiled with UCACHE_TSAN, which swaps Synchronization.Mutex (whose futex
#         path TSan does not see on Linux) for a pthread-backed lock with the same API (SanitizerMutex.swift).
# Suppressions (scripts/sanitizers/*.supp) hold third-party noise only, each entry with its reason.
# SANITIZE_FILTER overrides the test filter (a regular expression over Module.Suite/test).
set -euo pipefail
cd "$(dirname "$0")/.."
kind="${1:?usage: scripts/sanitize.sh asan|tsan}"
suppressions="$PWD/scripts/sanitizers"
defines=()
case "$kind" in
asan)
    sanitizer=address
    filter="${SANITIZE_FILTER:-.}"  # every test target (about 30 s of tests on 2 cores)
    export ASAN_OPTIONS="detect_leaks=1:fast_unwind_on_malloc=0:suppressions=$suppressions/asan.supp:${ASAN_OPTIONS:-}"
    export LSAN_OPTIONS="suppressions=$suppressions/lsan.supp:print_suppressions=0:${LSAN_OPTIONS:-}"
    pattern='ERROR: (AddressSanitizer|LeakSanitizer)'
    export UCACHE_TEST_TIME_SCALE="${UCACHE_TEST_TIME_SCALE:-4}"  # the tests run about 6 times slower
    ;;
tsan)
    sanitizer=thread
    defines=(-Xswiftc -DUCACHE_TSAN)
    filter="${SANITIZE_FILTER:-.}"  # every test target (about 10 s of tests on 2 cores)
    export TSAN_OPTIONS="suppressions=$suppressions/tsan.supp:print_suppressions=0:${TSAN_OPTIONS:-}"
    pattern='WARNING: ThreadSanitizer'
    export UCACHE_TEST_TIME_SCALE="${UCACHE_TEST_TIME_SCALE:-8}"  # windows a loaded CI run needs (2, then 4, were flaky)
    ;;
*)
    echo "usage: scripts/sanitize.sh asan|tsan" >&2
    exit 2
    ;;
esac
scratch=".build-$kind"
log="$scratch/$kind-tests.log"

python3 Fixtures/bank/test_server.py >/dev/null
swift build --build-tests --scratch-path "$scratch" --sanitize="$sanitizer" -Xswiftc -warnings-as-errors \
    ${defines[@]+"${defines[@]}"}
status=0
: >"$log"
# One test process per test target (ASan since the suite passed 850 tests, TSan always): with every target in one
# process, every test of the suite runs at once on 2 cores, and read-your-writes and replica tests missed their
# timing windows under ASan. Under TSan, besides: hundreds of idle client and Redis
# threads of finished tests stay alive, and under TSan their wake-ups pile up on a lock of the Swift runtime's
# metadata cache (seen with gdb: 116 threads in swift_getCanonicalPrespecializedGenericMetadata), stalling the
# process for seconds and failing timing windows. Every test still runs; SANITIZE_FILTER runs one process as given.
# The three largest targets run in groups of their own for the same reason: the Redis Cluster suites (six
# redis-servers each) apart from the replica tests' timing windows, UnifiedCache's ~300 tests in three processes, and
# GraphQL's ~140 fixture tests in two (in one, a read-your-writes test's first request waited past its 40 s window
# behind the others on a CI run). Each entry is
# "filter ~ skip" (optionally " ~ serial"); the groups of a target partition its tests (checked with `swift test list`).
if [ -z "${SANITIZE_FILTER:-}" ]; then
    groups=()
    for target in Tests/*/; do
        name=$(basename "$target")
        case "$name" in
        RedisReplicationTests)
            groups+=("^$name\\.SecondLevelCluster ~ " "^$name\\.(Replica|Replication) ~ "
                "^$name\\. ~ ^$name\\.(SecondLevelCluster|Replica|Replication)") ;;
        UnifiedCacheTests)
            groups+=("^$name\\.SecondLevel ~  ~ serial" "^$name\\.(Replication|AntiReplay|Replica) ~ "
                "^$name\\.[A-Ma-m] ~ ^$name\\.AntiReplay"
                "^$name\\.[N-Zn-z_] ~ ^$name\\.(SecondLevel|Replication|Replica)") ;;
        GraphQLCacheTests)
            groups+=("^$name\\.Client[A-Fa-f] ~ " "^$name\\.Client ~ ^$name\\.Client[A-Fa-f]"
                "^$name\\. ~ ^$name\\.Client") ;;
        *) groups+=("^$name\\. ~ ") ;;
        esac
    done
else
    groups=("$filter ~ ")
fi
for group in "${groups[@]}"; do
    one="${group%% ~ *}"
    rest="${group#* ~ }"
    skip="${rest%% ~ *}"
    skipping=()
    [ -n "$skip" ] && skipping=(--skip "$skip")
    # "filter ~ skip ~ serial": under TSan, the second-level suites run one test at a time (each starts hubs whose
    # Redis and client threads, by the dozen under TSan, starved each other's write-settling windows in parallel).
    if [ "$kind" = tsan ] && [ "${group% ~ serial}" != "$group" ]; then skipping+=(--no-parallel); fi
    swift test --skip-build --scratch-path "$scratch" --sanitize="$sanitizer" --filter "$one" \
        ${skipping[@]+"${skipping[@]}"} 2>&1 | tee -a "$log" || status=$?
done
reports=$(grep -cE "$pattern" "$log" || true)
if [ "$reports" != 0 ]; then
    echo "$kind: $reports sanitizer report(s) in $log" >&2
    exit 1
fi
if [ "$status" != 0 ]; then
    echo "$kind: the tests failed (exit $status); see $log" >&2
    exit "$status"
fi
echo "$kind: no sanitizer report; tests passed ($filter)"
