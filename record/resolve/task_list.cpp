#include "record/resolve/task_list.h"

#include <algorithm>
#include <charconv>
#include <filesystem>

#include "common/file_io.h"

namespace usdt::record {

namespace {

// The numeric entries of a /proc directory, ascending.
std::vector<pid_t> numeric_entries(const std::string& dir) {
  std::vector<pid_t> ids;
  std::error_code ec;
  std::filesystem::directory_iterator it(dir, ec);
  for (; !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    std::string name = it->path().filename().string();
    pid_t id = 0;
    auto [ptr, err] = std::from_chars(name.data(), name.data() + name.size(), id);
    if (err == std::errc() && ptr == name.data() + name.size()) ids.push_back(id);
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

}  // namespace

std::vector<pid_t> list_threads(pid_t pid) {
  return numeric_entries("/proc/" + std::to_string(pid) + "/task");
}

std::vector<pid_t> list_processes() { return numeric_entries("/proc"); }

std::string read_comm(pid_t pid, pid_t tid) {
  Result<std::string> comm =
      read_text_file("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/comm");
  if (!comm) return "";
  std::string s = std::move(*comm);
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

bool process_alive(pid_t pid) {
  Result<std::string> stat = read_text_file("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return false;
  // "pid (comm) S ...": the state follows the last ')', comm may hold ')'.
  size_t close = stat->rfind(')');
  if (close == std::string::npos || close + 2 >= stat->size()) return false;
  char state = (*stat)[close + 2];
  return state != 'Z' && state != 'X';
}

}  // namespace usdt::record
