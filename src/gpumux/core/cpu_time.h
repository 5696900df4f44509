// CPU time of this process (user + system, every thread): what a run costs
// on a shared machine, where wall time also counts the other work.
#pragma once

#include <ctime>

namespace gpumux {

inline double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

}  // namespace gpumux
