#include "record/output/trigger_spec.h"

#include <cctype>
#include <charconv>
#include <vector>

#include "record/output/output_policy.h"

namespace usdt::record {
namespace {

bool is_operator_char(char c) { return c == '=' || c == '!' || c == '<' || c == '>'; }

// Words, operators (split off even when written against a word: ">500ms")
// and "quoted strings" (kept with their quotes, backslash escapes undone).
Result<std::vector<std::string>> tokens_of(const std::string& text) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '"') {
      std::string quoted = "\"";
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\' && i + 1 < text.size()) ++i;
        quoted += text[i];
      }
      if (i == text.size()) return Error("the string in '" + text + "' has no closing quote");
      ++i;
      out.push_back(quoted + "\"");
    } else if (is_operator_char(c)) {
      size_t n = (i + 1 < text.size() && text[i + 1] == '=') ? 2 : 1;
      out.push_back(text.substr(i, n));
      i += n;
    } else {
      size_t j = i;
      while (j < text.size() && !std::isspace(static_cast<unsigned char>(text[j])) &&
             !is_operator_char(text[j]) && text[j] != '"') {
        ++j;
      }
      out.push_back(text.substr(i, j - i));
      i = j;
    }
  }
  return out;
}

bool is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.') return false;
  }
  return true;
}

// argN (N below 12) or a name.
Result<TriggerArg> parse_arg(const std::string& word, const std::string& text) {
  TriggerArg arg;
  if (word.size() > 3 && word.compare(0, 3, "arg") == 0 &&
      std::isdigit(static_cast<unsigned char>(word[3]))) {
    int n = 0;
    auto [p, ec] = std::from_chars(word.data() + 3, word.data() + word.size(), n);
    if (ec != std::errc() || p != word.data() + word.size() || n > 11) {
      return Error("--snapshot-on '" + text + "': '" + word + "' is not arg0 to arg11");
    }
    arg.index = n;
    return arg;
  }
  if (!is_identifier(word)) {
    return Error("--snapshot-on '" + text + "': '" + word +
                 "' is not an argument (argN or an argument's name)");
  }
  arg.name = word;
  return arg;
}

Result<ProbeSpec> parse_probe(const std::string& word, const std::string& text) {
  Result<ProbeSpec> spec = ProbeSpec::parse(word);
  if (!spec) return spec.error().context("--snapshot-on '" + text + "'");
  return spec;
}

Result<CompareOp> parse_op(const std::string& word) {
  if (word == "==") return CompareOp::eq;
  if (word == "!=") return CompareOp::ne;
  if (word == "<") return CompareOp::lt;
  if (word == "<=") return CompareOp::le;
  if (word == ">") return CompareOp::gt;
  if (word == ">=") return CompareOp::ge;
  return Error("'" + word + "' is not a comparison (==, !=, <, <=, >, >=)");
}

// An integer: decimal, -decimal or 0x hexadecimal, as its 64-bit pattern.
bool parse_integer(const std::string& word, uint64_t* value, bool* negative) {
  std::string_view s = word;
  *negative = !s.empty() && s[0] == '-';
  if (*negative) s.remove_prefix(1);
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size()) return false;
  if (*negative && v > (uint64_t{1} << 63)) return false;
  *value = *negative ? uint64_t{0} - v : v;
  return true;
}

Result<TriggerCondition> parse_condition(const std::vector<std::string>& t, size_t at,
                                         const std::string& text) {
  if (t.size() != at + 4 || t[at] != "if") {
    return Error("--snapshot-on '" + text + "': after the probe, only 'if ARG OP VALUE'");
  }
  TriggerCondition c;
  Result<TriggerArg> arg = parse_arg(t[at + 1], text);
  if (!arg) return arg.error();
  c.arg = *arg;
  Result<CompareOp> op = parse_op(t[at + 2]);
  if (!op) return op.error().context("--snapshot-on '" + text + "'");
  c.op = *op;
  const std::string& value = t[at + 3];
  if (value.size() >= 2 && value.front() == '"') {
    if (c.op != CompareOp::eq && c.op != CompareOp::ne) {
      return Error("--snapshot-on '" + text + "': a string compares with == or != only");
    }
    c.is_string = true;
    c.text = value.substr(1, value.size() - 2);
    return c;
  }
  if (!parse_integer(value, &c.value, &c.is_negative)) {
    return Error("--snapshot-on '" + text + "': '" + value +
                 "' is not an integer or a \"quoted string\"");
  }
  return c;
}

Result<TriggerSpec> parse_latency(const std::vector<std::string>& t, TriggerSpec spec) {
  const std::string& text = spec.text;
  if (t.size() < 5 || (t[3] != ">" && t[3] != ">=")) {
    return Error("--snapshot-on '" + text +
                 "': expected 'latency PROBE_START PROBE_END > DURATION [--key KEY]'");
  }
  Result<ProbeSpec> start = parse_probe(t[1], text);
  if (!start) return start.error();
  Result<ProbeSpec> end = parse_probe(t[2], text);
  if (!end) return end.error();
  spec.start = std::move(*start);
  spec.end = std::move(*end);
  spec.or_equal = t[3] == ">=";
  Result<uint64_t> threshold = parse_duration_ns(t[4], "--snapshot-on latency", true);
  if (!threshold) return threshold.error().context("--snapshot-on '" + text + "'");
  spec.threshold_ns = *threshold;
  if (t.size() == 5) return spec;
  if (t.size() != 7 || t[5] != "--key") {
    return Error("--snapshot-on '" + text + "': after the duration, only '--key KEY'");
  }
  if (t[6] == "tid") {
    spec.key = TriggerSpec::Key::tid;
  } else if (t[6] == "pid") {
    spec.key = TriggerSpec::Key::pid;
  } else {
    Result<TriggerArg> key = parse_arg(t[6], text);
    if (!key) return key.error();
    spec.key = TriggerSpec::Key::arg;
    spec.key_arg = *key;
  }
  return spec;
}

}  // namespace

Result<TriggerSpec> parse_trigger(const std::string& text) {
  Result<std::vector<std::string>> t = tokens_of(text);
  if (!t) return t.error().context("--snapshot-on");
  TriggerSpec spec;
  spec.text = text;
  if (t->empty()) return Error("--snapshot-on needs 'latency ...' or 'probe ...', not ''");
  if ((*t)[0] == "latency") {
    spec.kind = TriggerSpec::Kind::latency;
    return parse_latency(*t, std::move(spec));
  }
  if ((*t)[0] != "probe") {
    return Error("--snapshot-on '" + text + "': starts with 'latency' or 'probe', not '" + (*t)[0] +
                 "'");
  }
  spec.kind = TriggerSpec::Kind::probe;
  if (t->size() < 2) return Error("--snapshot-on '" + text + "': expected 'probe PROBE'");
  Result<ProbeSpec> probe = parse_probe((*t)[1], text);
  if (!probe) return probe.error();
  spec.probe = std::move(*probe);
  if (t->size() == 2) return spec;
  Result<TriggerCondition> condition = parse_condition(*t, 2, text);
  if (!condition) return condition.error();
  spec.condition = std::move(*condition);
  return spec;
}

bool compare_number(const TriggerCondition& c, uint64_t value, bool is_signed) {
  const bool as_signed = is_signed || c.is_negative;
  auto less = [&](uint64_t a, uint64_t b) {
    return as_signed ? static_cast<int64_t>(a) < static_cast<int64_t>(b) : a < b;
  };
  switch (c.op) {
    case CompareOp::eq:
      return value == c.value;
    case CompareOp::ne:
      return value != c.value;
    case CompareOp::lt:
      return less(value, c.value);
    case CompareOp::le:
      return !less(c.value, value);
    case CompareOp::gt:
      return less(c.value, value);
    case CompareOp::ge:
      return !less(value, c.value);
  }
  return false;
}

}  // namespace usdt::record
