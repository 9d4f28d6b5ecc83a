// The groups of --by (latency, hist): the pid, tid or an argument's value of
// an event. A string argument groups by its bytes, copied (the reader's
// StringArg dies at its next record); a string the recorder cut is another
// group than the same bytes uncut. An event without the argument has no key
// (present false): it counts in a group of its own, "(argument missing)".
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "formats/trace_types.h"
#include "common/flat_map.h"
#include "report/input/probe_catalog.h"
#include "report/input/query.h"

namespace usdt::report {

struct GroupKey {
  bool present = false;  // false: the event lacks the argument
  uint32_t domain = 0;   // pid/tid: the file's key domain; arguments: 0
  uint64_t value = 0;
  ArgType type = ArgType::unsigned_int;  // how to print an argument value
  std::string text;                      // type string: the bytes
  bool truncated = false;                // type string: cut by the recorder
};

// The --by key of an event; site gives argument types (may be null);
// hosts[domain] names the event's host for --by host (a string key).
GroupKey group_key_of(const KeySpec& by, uint32_t domain, const format::Event& e,
                      const SiteInfo* site, const std::vector<std::string>* hosts = nullptr);

// Present keys first; then by domain; numbers in numeric order (signed ones
// as signed), then strings in byte order.
bool group_key_less(const GroupKey& a, const GroupKey& b);

// Text labels of string keys are cut to this many characters (JSON has them whole).
constexpr size_t kGroupLabelChars = 60;


// A hash map from strings that finds by string_view without a copy.
struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
};
using StringMap = std::unordered_map<std::string, uint32_t, StringHash, std::equal_to<>>;

// Dense indexes (0, 1, ...) of the group keys seen, up to a limit.
class GroupIndex {
 public:
  // by_arg: keys are argument values (no domain), else (domain, pid/tid).
  explicit GroupIndex(bool by_arg) : by_arg_(by_arg) {}

  // The index of key. A new key gets the next index when can_add, and
  // *added is set; otherwise nullopt.
  std::optional<uint32_t> find_or_add(const GroupKey& key, bool can_add, bool* added);

 private:
  bool by_arg_;
  FlatMap<uint32_t> numbers_;  // index + 1
  StringMap strings_;          // flag byte (1: cut) + bytes -> index + 1
  std::optional<uint32_t> absent_;
  uint32_t next_ = 0;
  std::string scratch_;
};

}  // namespace usdt::report
