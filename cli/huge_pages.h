// Backing the compile's heap with transparent huge pages.
#pragma once

namespace inmanta::cli {

// Asks the allocator (mimalloc) to back the heap with 2 MiB transparent huge pages from here on,
// including the part it reserved before main(). A compile touches tens to hundreds of MiB once;
// with 4 KiB pages a quarter of a 1,000-service compile went to page faults on the 2-core VMs
// we measure on (see the figures in README.md). Without mimalloc (sanitizer builds), or when the
// user set MIMALLOC_LARGE_OS_PAGES, it does nothing; a kernel without THP ignores the advice.
void preferHugePages();

}  // namespace inmanta::cli
