#include "report/input/trace_paths.h"

#include <glob.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace usdt::report {
namespace {

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// The regular *.trace files of a directory, in name order.
std::vector<std::string> traces_in(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (!ends_with(name, ".trace") || name.front() == '.') continue;
    std::error_code type_ec;
    if (!entry.is_regular_file(type_ec)) continue;
    out.push_back(entry.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> matches_of(const std::string& pattern) {
  std::vector<std::string> out;
  glob_t g{};
  if (::glob(pattern.c_str(), 0, nullptr, &g) == 0) {
    for (size_t i = 0; i < g.gl_pathc; ++i) out.emplace_back(g.gl_pathv[i]);
  }
  globfree(&g);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::vector<std::string> expand_trace_paths(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (const std::string& arg : args) {
    struct stat st {};
    const bool exists = ::stat(arg.c_str(), &st) == 0;
    std::vector<std::string> found;
    if (exists && S_ISDIR(st.st_mode)) {
      found = traces_in(arg);
    } else if (!exists && arg.find_first_of("*?[") != std::string::npos) {
      found = matches_of(arg);
    }
    if (found.empty()) {
      out.push_back(arg);
    } else {
      out.insert(out.end(), found.begin(), found.end());
    }
  }
  return out;
}

}  // namespace usdt::report
