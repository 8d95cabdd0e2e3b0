// LeakSanitizer's compiled-in suppressions for processes that run the embedded CPython, so that
// every sanitizer run (ctest, the conformance runner, by hand) agrees. They must be in the
// executable: the sanitizer runtime does not see definitions in libinmanta_python.so, which is
// loaded later and locally. pybind11 keeps its bookkeeping (type records, the life-support TLS
// key) for the life of the process and does not free it when the interpreter is finalised at
// exit; nothing else of ours or of Python's is suppressed.
#if defined(__SANITIZE_ADDRESS__)
extern "C" const char* __lsan_default_suppressions() {
  return "leak:pybind11::detail::get_local_internals\n"
         "leak:pybind11::detail::local_internals::local_internals\n"
         "leak:pybind11::detail::generic_type::initialize\n";
}
// and silently: standard error is compared with goldens (LSAN_OPTIONS still overrides this)
extern "C" const char* __lsan_default_options() { return "print_suppressions=0"; }
#endif
