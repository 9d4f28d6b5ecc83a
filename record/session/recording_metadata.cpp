#include "record/session/recording_metadata.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <string>

#include "common/file_io.h"

namespace usdt::record {
namespace {

std::string own_command_line() {
  Result<std::string> raw = read_text_file("/proc/self/cmdline");
  if (!raw) return "usdt-record";
  std::string s = *raw;
  while (!s.empty() && s.back() == '\0') s.pop_back();
  for (char& c : s) {
    if (c == '\0') c = ' ';
  }
  return s;
}

}  // namespace

uint64_t clock_ns(clockid_t clock) {
  timespec ts;
  clock_gettime(clock, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

format::TraceMetadata make_metadata(const std::vector<int>& cpus, const std::string& hostname) {
  format::TraceMetadata m;
  char host[256] = {};
  if (!hostname.empty()) {
    m.hostname = hostname;
  } else if (gethostname(host, sizeof host - 1) == 0) {
    m.hostname = host;
  }
  utsname u;
  if (uname(&u) == 0) {
    m.kernel_release = u.release;
    m.arch = u.machine;
  }
  m.page_size = static_cast<uint32_t>(sysconf(_SC_PAGESIZE));
  m.command_line = own_command_line();
  m.recorder_version = USDT_TRACE_VERSION;
  m.start_monotonic_ns = clock_ns(CLOCK_MONOTONIC);
  m.start_realtime_ns = clock_ns(CLOCK_REALTIME);
  for (int cpu : cpus) m.cpus.push_back(static_cast<uint32_t>(cpu));
  std::sort(m.cpus.begin(), m.cpus.end());
  return m;
}

}  // namespace usdt::record
