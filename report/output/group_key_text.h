// A group's key as the commands print it (hist --by, latency --by).
#pragma once

#include <string>
#include <vector>

#include "report/stats/group_key.h"

namespace usdt::report {

// The key as printed: text "(argument missing)", a number, or the escaped
// string cut to kGroupLabelChars; JSON null, a number, or the whole string.
std::string group_key_text(const GroupKey& key, bool json);

// The text labels of a table's groups: string keys longer than
// kGroupLabelChars shortened in the middle (report/output/string_text.h),
// and widened where two would otherwise look the same.
std::vector<std::string> group_labels(const std::vector<const GroupKey*>& keys);

}  // namespace usdt::report
