// --control fifo:PATH[,ACK] (perf record's --control): commands read from a
// FIFO while recording. "snapshot" asks the output for a flight-recorder
// snapshot, or for the next file of a series; "ack\n" is written to ACK
// once a command is taken. The FIFOs are made when missing (and removed at
// the end if we made them); PATH is opened read-write so that the loop
// never sees an end of file when a writer closes it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "common/unique_fd.h"
#include "record/output/output_policy.h"

namespace usdt::record {

class ControlFifo {
 public:
  // Opens the FIFOs of spec into out (a Status, not a Result: GCC 12 warns
  // falsely of a free of a non-heap object in a Result<ControlFifo>).
  static Status open(const ControlSpec& spec, std::optional<ControlFifo>& out);
  ControlFifo(ControlFifo&&) noexcept = default;
  ControlFifo& operator=(ControlFifo&&) noexcept = default;
  ~ControlFifo();

  int fd() const { return fd_.get(); }
  // The whole lines read so far (without newline, blanks trimmed), in order.
  std::vector<std::string> read_commands();
  // "ack\n" to ACK, when there is one (nothing when no one reads it).
  void ack();

 private:
  ControlFifo() = default;
  UniqueFd fd_;
  UniqueFd ack_fd_;
  std::vector<std::string> made_;  // FIFOs to remove at the end
  std::string partial_;            // a line not yet ended
};

}  // namespace usdt::record
