#include "always_on_support.h"

#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <thread>

#include "formats/trace_reader.h"
#include "integration_support.h"

namespace usdt::itest {

std::string temp_dir(const std::string& name) {
  std::filesystem::path dir = std::filesystem::path(temp_trace(name)).replace_extension(".d");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

std::vector<std::string> files_in(const std::string& dir, const std::string& suffix) {
  std::vector<std::string> out;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string path = entry.path().string();
    if (entry.is_regular_file() && path.size() >= suffix.size() &&
        path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0) {
      out.push_back(path);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool wait_for_file(const std::string& path, std::chrono::seconds timeout) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  while (::access(path.c_str(), F_OK) != 0) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

format::TraceMetadata metadata_of(const std::string& path) {
  auto reader = format::TraceReader::open(path);
  INFO(path);
  REQUIRE(reader);
  return reader->metadata();
}

std::vector<uint64_t> first_args(const std::vector<std::string>& files, const std::string& provider,
                                 const std::string& name) {
  std::vector<uint64_t> out;
  for (const std::string& f : files) {
    for (const format::Event& e : read_trace(f).of(provider, name)) out.push_back(e.args[0]);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string report_out(const std::vector<std::string>& args) {
  std::vector<std::string> argv{USDT_REPORT_PATH};
  argv.insert(argv.end(), args.begin(), args.end());
  RunResult r = run(argv);
  INFO(r.err);
  REQUIRE(r.status == 0);
  return r.out;
}

int64_t json_number(const std::string& json, const std::string& key, size_t from) {
  const std::string needle = "\"" + key + "\":";
  const size_t at = json.find(needle, from);
  if (at == std::string::npos) return -1;
  return std::stoll(json.substr(at + needle.size()));
}

}  // namespace usdt::itest
