#include "record/output/series_naming.h"

#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>

namespace usdt::record {

SeriesNaming::SeriesNaming(const std::string& output) : base_(output) {
  const std::string ext = ".trace";
  if (base_.size() > ext.size() && base_.compare(base_.size() - ext.size(), ext.size(), ext) == 0) {
    base_.resize(base_.size() - ext.size());
  }
}

std::string SeriesNaming::path(uint32_t sequence) const {
  char number[16];
  std::snprintf(number, sizeof number, "%04u", sequence);
  return base_ + "." + number + ".trace";
}

std::string new_recording_id() {
  uint64_t words[2] = {0, 0};
  if (getrandom(words, sizeof words, 0) != static_cast<ssize_t>(sizeof words)) {
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    words[0] = static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
    words[1] = static_cast<uint64_t>(getpid()) * 0x9e3779b97f4a7c15ull ^ words[0];
  }
  char hex[40];
  std::snprintf(hex, sizeof hex, "%016llx%016llx", static_cast<unsigned long long>(words[0]),
                static_cast<unsigned long long>(words[1]));
  return hex;
}

}  // namespace usdt::record
