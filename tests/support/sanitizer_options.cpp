// The sanitizer options of the GoogleTest binaries, compiled in: gtest_discover_tests passes only
// the first item of an ENVIRONMENT list, so ASAN_OPTIONS and UBSAN_OPTIONS cannot both be given
// there. Options from the environment still win over these defaults.
extern "C" const char* __asan_default_options() { return "detect_container_overflow=0"; }
extern "C" const char* __ubsan_default_options() { return "print_stacktrace=1"; }
