#include "record/resolve/pid_namespace.h"

#include <sys/stat.h>

#include <charconv>
#include <string>

#include "common/file_io.h"

namespace usdt::record {

uint64_t pid_namespace_of(std::string_view pid) {
  struct stat st {};
  const std::string path = "/proc/" + std::string(pid) + "/ns/pid";
  return ::stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_ino) : 0;
}

uint32_t innermost_id(std::string_view status, std::string_view field) {
  // The field at the start of a line: "NSpid:" must not match "...NSpid:".
  size_t at = 0;
  for (;;) {
    at = status.find(field, at);
    if (at == std::string_view::npos) return 0;
    if (at == 0 || status[at - 1] == '\n') break;
    at += field.size();
  }
  std::string_view line = status.substr(at + field.size());
  line = line.substr(0, line.find('\n'));
  // The last whitespace-separated number.
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
  const size_t last = line.find_last_of(" \t");
  std::string_view number = last == std::string_view::npos ? line : line.substr(last + 1);
  uint32_t id = 0;
  auto [p, ec] = std::from_chars(number.data(), number.data() + number.size(), id);
  return ec == std::errc() && p == number.data() + number.size() ? id : 0;
}

std::optional<ThreadNamespace> thread_namespace(pid_t pid, pid_t tid, uint64_t own_namespace) {
  const std::string task = std::to_string(pid) + "/task/" + std::to_string(tid);
  ThreadNamespace ns;
  ns.pid_namespace = pid_namespace_of(task);
  if (ns.pid_namespace == 0) return ns;  // gone: unknown
  if (ns.pid_namespace == own_namespace) return std::nullopt;
  Result<std::string> status = read_text_file("/proc/" + task + "/status");
  if (!status) return ThreadNamespace{};  // gone since: unknown
  ns.ns_pid = innermost_id(*status, "NStgid:");
  ns.ns_tid = innermost_id(*status, "NSpid:");
  if (ns.ns_pid == 0 || ns.ns_tid == 0) return ThreadNamespace{};
  return ns;
}

}  // namespace usdt::record
