#include "report/input/query.h"

#include <charconv>
#include <utility>
#include <string>

#include "formats/arg_name.h"

namespace usdt::report {

const char* command_name(Command command) {
  switch (command) {
    case Command::summary: return "summary";
    case Command::dump: return "dump";
    case Command::latency: return "latency";
    case Command::hist: return "hist";
    case Command::export_trace: return "export";
    case Command::stacks: return "stacks";
    case Command::flamegraph: return "flamegraph";
    case Command::heatmap: return "heatmap";
    case Command::html: return "html";
    case Command::top: return "top";
  }
  return "?";
}

int ArgRef::at(const SiteInfo* site) const {
  if (name.empty()) return index;
  return site != nullptr ? site->arg_named(name) : -1;
}

std::string ArgRef::text() const { return name.empty() ? "arg" + std::to_string(index) : name; }

Result<ArgRef> parse_arg_ref(const std::string& text, const char* option, bool numbers_too) {
  ArgRef a;
  std::string_view digits(text);
  if (text.size() > 3 && text.compare(0, 3, "arg") == 0) digits.remove_prefix(3);
  const bool positional = digits.size() != text.size() || numbers_too;
  if (positional && !digits.empty() && digits.find_first_not_of("0123456789") == std::string_view::npos) {
    int n = -1;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (ec == std::errc() && ptr == digits.data() + digits.size() && n >= 0 && n < format::kMaxArgs) {
      a.index = n;
      return a;
    }
    return Error(std::string("invalid ") + option + " '" + text +
                 "': probes have at most 12 arguments (arg0 to arg11)");
  }
  if (format::is_valid_arg_name(text, 0)) {
    a.name = text;
    return a;
  }
  return Error(std::string("invalid ") + option + " '" + text +
               "': expected argN (N from 0 to 11) or an argument's name");
}

std::string KeySpec::text() const {
  switch (kind) {
    case Kind::tid: return "tid";
    case Kind::pid: return "pid";
    case Kind::arg:
      if (shape == KeyShape::sql) return "sql(" + arg.text() + ")";
      if (shape == KeyShape::digits) return "digits(" + arg.text() + ")";
      return arg.text();
    case Kind::host: return "host";
  }
  return "?";
}

Result<KeySpec> parse_key_spec(const std::string& text, const char* option) {
  KeySpec k;
  if (text == "tid") return k;
  if (text == "pid") {
    k.kind = KeySpec::Kind::pid;
    return k;
  }
  std::string inner = text;
  for (auto [word, shape] : {std::pair{"sql(", KeyShape::sql}, std::pair{"digits(", KeyShape::digits}}) {
    const std::string_view w(word);
    if (text.size() > w.size() + 1 && text.compare(0, w.size(), w) == 0 && text.back() == ')') {
      inner = text.substr(w.size(), text.size() - w.size() - 1);
      k.shape = shape;
    }
  }
  Result<ArgRef> arg = parse_arg_ref(inner, option, false);
  if (!arg) {
    return Error(std::string("invalid ") + option + " '" + text +
                 "': expected tid, pid, argN (N from 0 to 11), an argument's name, or sql(ARG) or "
                 "digits(ARG) of a string argument");
  }
  k.kind = KeySpec::Kind::arg;
  k.arg = *arg;
  return k;
}

Result<LinearSpec> parse_linear_spec(std::string_view text) {
  auto bad = [&](const std::string& why) {
    return Error("invalid --linear '" + std::string(text) + "': " + why +
                 " (expected MIN,MAX,STEP, e.g. 0,1000,100)");
  };
  int64_t values[3] = {};
  std::string_view rest = text;
  for (int i = 0; i < 3; ++i) {
    size_t comma = rest.find(',');
    std::string_view part = i < 2 ? rest.substr(0, comma) : rest;
    if (i < 2 && comma == std::string_view::npos) return bad("three numbers are needed");
    auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), values[i]);
    if (ec != std::errc() || ptr != part.data() + part.size() || part.empty()) {
      return bad("'" + std::string(part) + "' is not an integer");
    }
    if (i < 2) rest = rest.substr(comma + 1);
  }
  LinearSpec spec{values[0], values[1], values[2]};
  if (spec.step <= 0) return bad("STEP must be positive");
  if (spec.min >= spec.max) return bad("MIN must be below MAX");
  __int128 buckets = (static_cast<__int128>(spec.max) - spec.min + spec.step - 1) / spec.step;
  if (buckets > kMaxLinearBuckets) {
    return bad("more than " + std::to_string(kMaxLinearBuckets) + " buckets");
  }
  return spec;
}

}  // namespace usdt::report
