#include "report/output/group_key_text.h"

#include "report/output/arg_format.h"
#include "report/output/json_text.h"
#include "report/output/string_text.h"

namespace usdt::report {

std::string group_key_text(const GroupKey& g, bool json) {
  if (!g.present) return json ? "null" : "(argument missing)";
  if (g.type == ArgType::string)
    return json ? json_string(g.text) : text_label(g.text, g.truncated, kGroupLabelChars);
  return arg_text(g.value, g.type, json);
}

}  // namespace usdt::report
