#include "report/stats/group_key.h"

#include <tuple>

#include "report/stats/query_shape.h"


namespace usdt::report {

GroupKey group_key_of(const KeySpec& by, uint32_t domain, const format::Event& e,
                      const SiteInfo* site, const std::vector<std::string>* hosts) {
  GroupKey g;
  switch (by.kind) {
    case KeySpec::Kind::host:
      // One group per host name, also over several files of one host.
      g.present = true;
      g.type = ArgType::string;
      if (hosts && domain < hosts->size()) g.text = (*hosts)[domain];
      break;
    case KeySpec::Kind::tid:
      g.present = true;
      g.domain = domain;
      g.value = e.tid;
      break;
    case KeySpec::Kind::pid:
      g.present = true;
      g.domain = domain;
      g.value = e.pid;
      break;
    case KeySpec::Kind::arg: {
      int i = by.arg.at(site);
      if (i < 0 || !e.has_arg(i)) return g;
      g.present = true;
      if (e.is_string(i)) {
        g.type = ArgType::string;
        if (by.shape == KeyShape::none) {
          g.text.assign(e.string_arg(i).bytes);
        } else {
          g.text = shape_of(by.shape, e.string_arg(i).bytes);
        }
        g.truncated = e.string_arg(i).truncated;
        break;
      }
      g.value = e.args[i];
      g.type = arg_type_at(site, i);
      if (g.type == ArgType::string)
        g.type = ArgType::unsigned_int;  // a number where the site says string
      break;
    }
  }
  return g;
}

bool group_key_less(const GroupKey& a, const GroupKey& b) {
  if (a.present != b.present) return a.present;
  if (a.domain != b.domain) return a.domain < b.domain;
  bool sa = a.type == ArgType::string, sb = b.type == ArgType::string;
  if (sa != sb) return sb;
  if (sa) return std::tie(a.text, a.truncated) < std::tie(b.text, b.truncated);
  auto signed_of = [](const GroupKey& k) {
    return k.type == ArgType::signed_int ? static_cast<__int128>(static_cast<int64_t>(k.value))
                                         : static_cast<__int128>(k.value);
  };
  return signed_of(a) < signed_of(b);
}

std::optional<uint32_t> GroupIndex::find_or_add(const GroupKey& key, bool can_add, bool* added) {
  *added = false;
  uint32_t* slot = nullptr;
  if (!key.present) {
    if (absent_) return absent_;
    if (!can_add) return std::nullopt;
    absent_ = next_++;
    *added = true;
    return absent_;
  }
  if (key.type == ArgType::string) {
    scratch_.assign(1, key.truncated ? '\1' : '\0');
    scratch_.append(key.text);
    auto it = strings_.find(std::string_view(scratch_));
    if (it != strings_.end()) return it->second - 1;
    if (!can_add) return std::nullopt;
    slot = &strings_.emplace(scratch_, 0).first->second;
  } else {
    uint64_t k =
        by_arg_ ? key.value : (uint64_t{key.domain} << 32) | static_cast<uint32_t>(key.value);
    if (uint32_t* found = numbers_.find(k)) return *found - 1;
    if (!can_add) return std::nullopt;
    slot = &numbers_[k];
  }
  *slot = ++next_;
  *added = true;
  return *slot - 1;
}

}  // namespace usdt::report
