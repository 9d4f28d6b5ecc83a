// A group's key as the commands print it (hist --by, latency --by).
#pragma once

#include <string>

#include "report/stats/group_key.h"

namespace usdt::report {

// The key as printed: text "(argument missing)", a number, or the escaped
// string cut to kGroupLabelChars; JSON null, a number, or the whole string.
std::string group_key_text(const GroupKey& key, bool json);

}  // namespace usdt::report
