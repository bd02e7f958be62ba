#ifndef UNIFIEDCACHE_CLIBFUZZER_SHIM_H
#define UNIFIEDCACHE_CLIBFUZZER_SHIM_H

// libFuzzer's driver, for `ucache-fuzz` built by scripts/fuzz.sh (compiled with -sanitize=fuzzer instrumentation,
// linked with libclang_rt.fuzzer_no_main, so the program keeps its own main and picks the target from its
// arguments). Declaration only: the normal build never calls it and links nothing from here.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
