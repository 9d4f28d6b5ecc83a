#include "record/kernel/kernel_features.h"

#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <charconv>
#include <cstring>
#include <string_view>

#include "common/file_io.h"

namespace usdt::record {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

bool parse_int(std::string_view s, int& out) {
  if (s.empty()) return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size() && out >= 0;
}

// A disabled user-only software dummy event: what the feature probes open.
perf_event_attr disabled_dummy_attr() {
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_DUMMY;
  attr.disabled = 1;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  return attr;
}

// Whether the kernel opens attr on the calling thread (closed again at once).
bool opens_on_self(perf_event_attr& attr) {
  long fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd < 0) return false;
  close(static_cast<int>(fd));
  return true;
}

}  // namespace

Result<int> parse_config_field_shift(const std::string& text) {
  std::string_view s = trim(text);
  constexpr std::string_view kPrefix = "config:";
  if (s.substr(0, kPrefix.size()) != kPrefix) {
    return Error("unexpected PMU format field '" + std::string(s) + "' (want config:BITS)");
  }
  s.remove_prefix(kPrefix.size());
  size_t dash = s.find('-');
  int first = 0;
  if (!parse_int(s.substr(0, dash), first) || first > 63) {
    return Error("bad bit range in PMU format field '" + text + "'");
  }
  if (dash != std::string_view::npos) {
    int last = 0;
    if (!parse_int(s.substr(dash + 1), last) || last < first || last > 63) {
      return Error("bad bit range in PMU format field '" + text + "'");
    }
  }
  return first;
}

Result<std::vector<int>> parse_cpu_list(const std::string& text) {
  std::vector<int> cpus;
  std::string_view s = trim(text);
  while (!s.empty()) {
    size_t comma = s.find(',');
    std::string_view part = s.substr(0, comma);
    s = comma == std::string_view::npos ? std::string_view() : s.substr(comma + 1);
    size_t dash = part.find('-');
    int first = 0, last = 0;
    if (!parse_int(part.substr(0, dash), first)) return Error("bad CPU list '" + text + "'");
    last = first;
    if (dash != std::string_view::npos &&
        (!parse_int(part.substr(dash + 1), last) || last < first)) {
      return Error("bad CPU list '" + text + "'");
    }
    for (int cpu = first; cpu <= last; ++cpu) cpus.push_back(cpu);
  }
  if (cpus.empty()) return Error("empty CPU list");
  return cpus;
}

Result<KernelFeatures> probe_kernel_features(const std::string& sysfs_root) {
  KernelFeatures features;
  const std::string pmu = sysfs_root + "/bus/event_source/devices/uprobe";
  Result<std::string> type = read_text_file(pmu + "/type");
  if (!type) {
    return Error("the kernel has no uprobe PMU (" + pmu +
                 "/type is missing); "
                 "hint: a kernel 4.17+ built with CONFIG_UPROBE_EVENTS is needed");
  }
  int type_value = 0;
  if (!parse_int(trim(*type), type_value)) {
    return Error("cannot parse " + pmu + "/type: '" + std::string(trim(*type)) + "'");
  }
  features.uprobe_type = static_cast<uint32_t>(type_value);

  Result<std::string> retprobe = read_text_file(pmu + "/format/retprobe");
  if (!retprobe) return retprobe.error().context("the uprobe PMU does not describe retprobe");
  Result<int> retprobe_bit = parse_config_field_shift(*retprobe);
  if (!retprobe_bit) return retprobe_bit.error().context(pmu + "/format/retprobe");
  features.retprobe_bit = *retprobe_bit;

  // ref_ctr_offset arrived in 4.20; its absence only disables semaphore probes.
  if (Result<std::string> ref_ctr = read_text_file(pmu + "/format/ref_ctr_offset")) {
    Result<int> shift = parse_config_field_shift(*ref_ctr);
    if (!shift) return shift.error().context(pmu + "/format/ref_ctr_offset");
    features.ref_ctr_shift = *shift;
  }

  Result<std::string> online = read_text_file(sysfs_root + "/devices/system/cpu/online");
  if (!online) return online.error().context("cannot read the online CPUs");
  Result<std::vector<int>> cpus = parse_cpu_list(*online);
  if (!cpus) return cpus.error().context(sysfs_root + "/devices/system/cpu/online");
  features.cpus = std::move(*cpus);
  return features;
}

bool probe_mmap_build_id() {
  perf_event_attr attr = disabled_dummy_attr();
  attr.mmap = 1;
  attr.mmap2 = 1;
  attr.build_id = 1;
  return opens_on_self(attr);
}

bool probe_inherit_sample_read() {
  perf_event_attr attr = disabled_dummy_attr();
  attr.inherit = 1;
  attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_READ;
  return opens_on_self(attr);
}

}  // namespace usdt::record
