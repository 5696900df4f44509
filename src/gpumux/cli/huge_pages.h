// Transparent huge pages for the simulator's heap.
//
// The simulation's host time is mostly waiting for memory: every cycle walks
// the warp slots, register files and scoreboards of every SM, tens of MB in
// 4 KB pages, so many of its loads miss the TLB as well as the caches
// (docs/performance.md). glibc's malloc backs its heap with transparent huge
// pages when its tunable glibc.malloc.hugetlb=1 is set, which it reads only
// at process start: so the command re-executes itself once with it set.
#pragma once

namespace gpumux::cli {

// If the kernel gives huge pages on request only (transparent_hugepage
// "madvise") and GLIBC_TUNABLES does not already say what malloc should do,
// re-executes this program with glibc.malloc.hugetlb=1 added (returns only if
// that is not wanted or fails). In the re-executed process, removes what it
// added, so programs this one starts see the environment it was given.
void use_huge_pages(char** argv);

}  // namespace gpumux::cli
