// stacks' output: folded lines, JSON or text, hottest first.
#pragma once

#include <string>

#include "report/symbols/stacks_pass.h"

namespace usdt::report {

std::string stacks_folded(const StacksPass& whole);
std::string stacks_json(const StacksPass& whole);
std::string stacks_text(const StacksPass& whole);

}  // namespace usdt::report
