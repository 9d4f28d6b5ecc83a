// An Event kept past the reader's next next(): a copy that owns the bytes of
// its string arguments (a reader's StringArgs die at its next next()). For
// events held across records, such as export's still-open latency starts.
// The addresses of its call stack are copied too.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "formats/trace_types.h"

namespace usdt::report {

class EventCopy {
 public:
  EventCopy() = default;
  explicit EventCopy(const format::Event& e) { assign(e); }

  void assign(const format::Event& e) {
    event_ = e;
    for (int i = 0; i < e.arg_count && i < format::kMaxArgs; ++i) {
      if (!e.is_string(i) || !e.has_arg(i)) continue;
      bytes_[static_cast<size_t>(i)].assign(e.string_arg(i).bytes);
      strings_[static_cast<size_t>(i)].truncated = e.string_arg(i).truncated;
    }
    stack_.assign(e.stack, e.stack + e.stack_depth);
  }

  // The copy, its string arguments pointing into this object: valid while
  // this object lives unchanged (pointers are set here, so copies and moves
  // of an EventCopy stay right).
  const format::Event& event() {
    for (int i = 0; i < event_.arg_count && i < format::kMaxArgs; ++i) {
      if (!event_.is_string(i) || !event_.has_arg(i)) continue;
      format::StringArg& s = strings_[static_cast<size_t>(i)];
      s.bytes = bytes_[static_cast<size_t>(i)];
      event_.args[i] = reinterpret_cast<uintptr_t>(&s);
    }
    event_.stack = stack_.empty() ? nullptr : stack_.data();
    return event_;
  }

 private:
  format::Event event_;
  std::array<format::StringArg, format::kMaxArgs> strings_{};
  std::array<std::string, format::kMaxArgs> bytes_;
  std::vector<uint64_t> stack_;  // the call stack's addresses (format 1.3)
};

}  // namespace usdt::report
