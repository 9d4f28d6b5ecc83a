#include "report/segments.h"

#include <sched.h>

namespace usdt::report {

unsigned report_threads(uint32_t jobs_option) {
  if (jobs_option != 0) return jobs_option;
  // The CPUs this process may run on (a container or taskset may allow
  // fewer than the machine has).
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) {
    return static_cast<unsigned>(CPU_COUNT(&set));
  }
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : n;
}

}  // namespace usdt::report
