#include "cli/huge_pages.h"

#include <cstdio>
#include <cstdlib>
#include <memory>

#if defined(INMANTA_WITH_MIMALLOC)
#include <sys/mman.h>
#endif

namespace inmanta::cli {

void preferHugePages() {
#if defined(INMANTA_WITH_MIMALLOC)
  if (std::getenv("MIMALLOC_LARGE_OS_PAGES") != nullptr) return;  // the user's choice
  // the region mimalloc mapped before main() (static initialisers allocate; 32 MiB): the
  // mapping holding a fresh allocation, found in /proc/self/maps
  auto probe = std::make_unique<char[]>(64);
  auto address = reinterpret_cast<unsigned long>(probe.get());
  std::unique_ptr<FILE, int (*)(FILE*)> maps(std::fopen("/proc/self/maps", "re"), &std::fclose);
  if (!maps) return;
  char line[512];
  while (std::fgets(line, sizeof line, maps.get()) != nullptr) {
    unsigned long low = 0;
    unsigned long high = 0;
    if (std::sscanf(line, "%lx-%lx", &low, &high) != 2 || address < low || address >= high) continue;
    (void)madvise(reinterpret_cast<void*>(low), high - low, MADV_HUGEPAGE);  // advice: failure is harmless
    return;
  }
#endif
}

}  // namespace inmanta::cli
