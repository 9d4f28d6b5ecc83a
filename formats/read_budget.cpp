#include "formats/read_budget.h"

namespace usdt::format {

std::string byte_size_text(uint64_t bytes) {
  constexpr uint64_t kKiB = 1024, kMiB = 1024 * 1024;
  if (bytes < 10 * kKiB) return std::to_string(bytes) + " bytes";
  if (bytes < 10 * kMiB) return std::to_string(bytes / kKiB + (bytes % kKiB != 0)) + " KiB";
  return std::to_string(bytes / kMiB + (bytes % kMiB != 0)) + " MiB";
}

std::string over_budget_text(uint64_t bytes, const ReadBudget* budget) {
  std::string out = "needs " + (bytes == UINT64_MAX ? "more than 16 EiB" : byte_size_text(bytes));
  if (budget == nullptr) return out;
  return out + ", more than the " + byte_size_text(budget->room()) +
         " left of the reader's memory budget of " + byte_size_text(budget->limit());
}

}  // namespace usdt::format
