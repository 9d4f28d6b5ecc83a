#include "report/input/segments.h"

#include <sched.h>

#include <algorithm>

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

std::vector<uint64_t> guided_bounds(const std::vector<uint64_t>& parts, unsigned threads) {
  if (parts.size() < 3 || threads == 0) return parts;
  const size_t count = parts.size() - 1;
  std::vector<uint64_t> out{parts.front()};
  for (size_t at = 0; at < count;) {
    at += std::max<size_t>(1, (count - at) / (2 * size_t{threads}));
    out.push_back(parts[at]);
  }
  return out;
}

}  // namespace usdt::report
