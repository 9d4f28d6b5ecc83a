#include "record/kernel/kernel_features.h"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <string>

using namespace usdt::record;

TEST_CASE("PMU format fields give the first bit", "[kernel_features]") {
  CHECK(*parse_config_field_shift("config:0") == 0);
  CHECK(*parse_config_field_shift("config:0\n") == 0);
  CHECK(*parse_config_field_shift("config:32-63\n") == 32);
  CHECK(*parse_config_field_shift("config:12-40") == 12);
  CHECK_FALSE(parse_config_field_shift("config1:0-63").ok());
  CHECK_FALSE(parse_config_field_shift("config:").ok());
  CHECK_FALSE(parse_config_field_shift("config:64").ok());
  CHECK_FALSE(parse_config_field_shift("config:40-32").ok());
  CHECK_FALSE(parse_config_field_shift("config:x").ok());
  CHECK_FALSE(parse_config_field_shift("").ok());
}

TEST_CASE("CPU lists expand ranges", "[kernel_features]") {
  CHECK(*parse_cpu_list("0\n") == std::vector<int>{0});
  CHECK(*parse_cpu_list("0-3") == std::vector<int>{0, 1, 2, 3});
  CHECK(*parse_cpu_list("0-1,4,6-7\n") == std::vector<int>{0, 1, 4, 6, 7});
  CHECK_FALSE(parse_cpu_list("").ok());
  CHECK_FALSE(parse_cpu_list("3-1").ok());
  CHECK_FALSE(parse_cpu_list("a").ok());
  CHECK_FALSE(parse_cpu_list("1,,2").ok());
}

namespace {

struct FakeSysfs {
  std::string root;
  FakeSysfs() {
    char tmpl[] = "/tmp/usdt_sysfs_XXXXXX";
    root = mkdtemp(tmpl);
  }
  ~FakeSysfs() { std::system(("rm -rf '" + root + "'").c_str()); }
  void write(const std::string& rel, const std::string& text) {
    std::string path = root + "/" + rel;
    std::system(("mkdir -p '" + path.substr(0, path.rfind('/')) + "'").c_str());
    std::ofstream(path) << text;
  }
};

}  // namespace

TEST_CASE("features come from sysfs, never assumed", "[kernel_features]") {
  FakeSysfs fs;
  fs.write("devices/system/cpu/online", "0-1\n");
  SECTION("no uprobe PMU is a clear error") {
    auto f = probe_kernel_features(fs.root);
    REQUIRE_FALSE(f.ok());
    CHECK(f.error().message().find("no uprobe PMU") != std::string::npos);
  }
  SECTION("bit positions as the PMU says") {
    fs.write("bus/event_source/devices/uprobe/type", "9\n");
    fs.write("bus/event_source/devices/uprobe/format/retprobe", "config:3\n");
    fs.write("bus/event_source/devices/uprobe/format/ref_ctr_offset", "config:20-51\n");
    auto f = probe_kernel_features(fs.root);
    REQUIRE(f.ok());
    CHECK(f->uprobe_type == 9);
    CHECK(f->retprobe_bit == 3);
    CHECK(f->ref_ctr_shift == 20);
    CHECK(f->semaphores_supported());
    CHECK(f->cpus == std::vector<int>{0, 1});
  }
  SECTION("no ref_ctr_offset: semaphores unsupported, not an error") {
    fs.write("bus/event_source/devices/uprobe/type", "8\n");
    fs.write("bus/event_source/devices/uprobe/format/retprobe", "config:0\n");
    auto f = probe_kernel_features(fs.root);
    REQUIRE(f.ok());
    CHECK_FALSE(f->semaphores_supported());
  }
}
