// What decides which start an end closes, shared by `usdt-report latency`
// (and export) and the recorder's latency triggers (usdt-record
// --snapshot-on), so that the two cannot pair differently: each probe site's
// role (start, end or neither), the key that pairs them (the thread, the
// process or an argument such as a request id) and, for function probes in
// several files, a pairing class per file.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace usdt::pairing {

enum class SiteRole : uint8_t { none = 0, start = 1, end = 2 };
enum class KeyKind : uint8_t { tid, pid, arg };

struct PairingRules {
  KeyKind key = KeyKind::tid;
  std::vector<SiteRole> roles;  // per site
  // Per site (or empty): starts and ends pair only within one class (tid
  // and pid keys). 0..0xffff.
  std::vector<uint16_t> pair_class;
  // Per site, with KeyKind::arg: the index of the key argument at that
  // site, -1 when the site has none (its events then miss the key).
  std::vector<int> key_arg;
  // With KeyKind::arg: what a string key pairs by, when not its bytes as
  // they are (usdt-report's sql() and digits() shapes): strings of one shape
  // are one key.
  std::function<std::string(std::string_view)> string_key_shape;
  // A parallel report's segment after the first: an end that finds no open
  // start of its key is kept for PairMatcher::merge_kept_ends instead of
  // counted as unmatched.
  bool later_segment = false;
};

// When every start and end site is a function probe (path_of_site not
// empty: uprobe:work, uretprobe:work), a return pairs only with entries in
// the same file: each probed file gets its own class (1, 2, ... in path
// order). Empty (one class for all) when a start or end is a USDT probe
// (empty path), when they all lie in one file, or with more than 0xffff
// files. path_of_site: per site, the probed file for function probes.
std::vector<uint16_t> pair_classes_by_file(const std::vector<SiteRole>& roles,
                                           const std::vector<std::string>& path_of_site);

}  // namespace usdt::pairing
