#include "report/duration_stats.h"

#include "report/json_text.h"

namespace usdt::report {

std::string DurationStats::mean_text() const { return decimal_ratio(sum_, count_); }

}  // namespace usdt::report
