// Backing the first part of the compile's heap with transparent huge pages.
#pragma once

namespace inmanta::cli {

// Advises MADV_HUGEPAGE on the region the allocator (mimalloc) mapped before main(): the first
// 32 MiB of the heap, where a compile of up to a few thousand services lives whole. A compile
// touches its memory once; with 4 KiB pages a quarter of a 1,000-service compile went to page
// faults on the 2-core VMs we measure on (the figures in README.md), with huge pages far less.
// Only that region: asking mimalloc for huge pages everywhere (MIMALLOC_LARGE_OS_PAGES) made a
// 10,000-service compile's system time 5 times longer there (fresh 2 MiB pages are slow to get
// on these VMs). Without mimalloc (sanitizer builds), or when the user set
// MIMALLOC_LARGE_OS_PAGES, it does nothing; a kernel without THP ignores the advice.
void preferHugePages();

}  // namespace inmanta::cli
