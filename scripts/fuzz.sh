#!/usr/bin/env bash
# make fuzz / make fuzz-smoke: builds ucache-fuzz with libFuzzer and AddressSanitizer (+ leak detection) in a
# scratch path of its own (.build-fuzz), then runs each fuzz target for FUZZ_SECONDS from its committed seed corpus
# (Fuzz/Corpus/<target>) and crash inputs (Fuzz/Regressions/<target>), with its dictionary (Fuzz/Dictionaries).
# Fails when any target crashes, leaks, times out, runs out of memory or breaks an invariant (the targets abort on
# a broken invariant); the input is left in .build-fuzz/artifacts/<target>/ and the log in .build-fuzz/logs/.
#
#   scripts/fuzz.sh [--seconds N] [target ...]      every target when none is named (`ucache-fuzz list`)
#
# Build: the modules are compiled with libFuzzer's coverage instrumentation (-sanitize=fuzzer given to the
# frontend) and ASan, and linked with libFuzzer's library *without* its main: ucache-fuzz keeps its own main, picks
# the target from its first argument and calls LLVMFuzzerRunDriver. -DUCACHE_LIBFUZZER selects that main; a normal
# `swift build` compiles the same sources into a replayer (`ucache-fuzz <target> <files>`).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${FUZZ_SECONDS:-60}"
targets=()
while [ $# -gt 0 ]; do
    case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    -h | --help) sed -n '2,13p' "$0"; exit 0 ;;
    *) targets+=("$1"); shift ;;
    esac
done
scratch=.build-fuzz
swift_bin="$(dirname "$(realpath "$(command -v swiftc)")")"
runtime=$(ls "$swift_bin"/../lib/clang/*/lib/linux/libclang_rt.fuzzer_no_main-*.a 2>/dev/null | head -1 || true)
if [ -z "$runtime" ]; then
    echo "fuzz: libFuzzer (libclang_rt.fuzzer_no_main) not found next to $swift_bin" >&2
    exit 1
fi
swift build --scratch-path "$scratch" --product ucache-fuzz \
    -Xswiftc -sanitize=address -Xswiftc -Xfrontend -Xswiftc -sanitize=fuzzer -Xswiftc -DUCACHE_LIBFUZZER \
    -Xlinker "$runtime" -Xlinker -lstdc++ 2>&1 | grep -v "Cannot export local symbol" || true
fuzzer="$scratch/debug/ucache-fuzz"
[ -x "$fuzzer" ] || { echo "fuzz: the build failed" >&2; exit 1; }
[ ${#targets[@]} -gt 0 ] || mapfile -t targets < <("$fuzzer" list)

export ASAN_OPTIONS="detect_leaks=1:suppressions=$PWD/scripts/sanitizers/asan.supp:${ASAN_OPTIONS:-}"
# Swift's own crash handler would print a second report (and trips over ASan's shadow memory): libFuzzer reports.
export SWIFT_BACKTRACE="enable=no"
export LSAN_OPTIONS="suppressions=$PWD/scripts/sanitizers/lsan.supp:print_suppressions=0:${LSAN_OPTIONS:-}"
mkdir -p "$scratch/logs"
failed=()
printf '%-18s %10s %8s %8s %8s  %s\n' target executions exec/s cov ft result
for target in "${targets[@]}"; do
    corpus="$scratch/corpus/$target"
    artifacts="$scratch/artifacts/$target"
    log="$scratch/logs/$target.log"
    mkdir -p "$corpus" "$artifacts"
    inputs=("$corpus" "Fuzz/Corpus/$target")
    [ -d "Fuzz/Regressions/$target" ] && inputs+=("Fuzz/Regressions/$target")
    options=(-max_total_time="$seconds" -timeout=30 -rss_limit_mb=4096 -print_final_stats=1
        -artifact_prefix="$artifacts/")
    [ -f "Fuzz/Dictionaries/$target.dict" ] && options+=(-dict="Fuzz/Dictionaries/$target.dict")
    status=0
    "$fuzzer" "$target" "${options[@]}" "${inputs[@]}" >"$log" 2>&1 </dev/null || status=$?
    executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    cov=$( (grep -oE 'cov: [0-9]+' "$log" || true) | tail -1 | cut -d' ' -f2)
    ft=$( (grep -oE 'ft: [0-9]+' "$log" || true) | tail -1 | cut -d' ' -f2)
    result=ok
    if [ "$status" -ne 0 ]; then
        result="FAILED (exit $status): $(grep -m1 -E 'ERROR: |Fatal error|invariant broken' "$log" || echo see "$log")"
        failed+=("$target")
    fi
    printf '%-18s %10s %8s %8s %8s  %s\n' "$target" "${executions:-?}" "${speed:-?}" "${cov:-?}" "${ft:-?}" "$result"
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz: ${failed[*]} failed; logs in $scratch/logs, inputs in $scratch/artifacts (see CONTRIBUTING.md, Fuzzing)" >&2
    for target in "${failed[@]}"; do tail -40 "$scratch/logs/$target.log" >&2; done
    exit 1
fi
echo "fuzz: ${#targets[@]} targets, ${seconds} s each, 0 crashes"
