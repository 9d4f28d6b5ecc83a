// The names of a recording's files when it writes more than one
// (formats/FORMAT.md 3.3.1): -o NAME.trace (or NAME) gives NAME.0001.trace,
// NAME.0002.trace, ... for the parts of a series and for snapshots alike,
// four digits at least, more past 9999. A file is written under its name
// followed by ".partial" and renamed when complete, so that a file under
// its final name is always whole.
#pragma once

#include <cstdint>
#include <string>

namespace usdt::record {

class SeriesNaming {
 public:
  explicit SeriesNaming(const std::string& output);
  // NAME.0007.trace
  std::string path(uint32_t sequence) const;
  std::string partial_path(uint32_t sequence) const { return path(sequence) + ".partial"; }
  // NAME.*.trace, for messages.
  std::string pattern() const { return base_ + ".*.trace"; }

 private:
  std::string base_;  // NAME
};

// A random 128-bit id in 32 hex digits (/dev/urandom; the clock and pid
// when it cannot be read): the recording_id its files share.
std::string new_recording_id();

}  // namespace usdt::record
