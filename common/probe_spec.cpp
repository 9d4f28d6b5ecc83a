#include "common/probe_spec.h"

#include <charconv>
#include <vector>

#include "common/glob_match.h"

namespace usdt {
namespace {

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (;;) {
    size_t pos = s.find(sep, start);
    parts.push_back(s.substr(start, pos - start));
    if (pos == std::string_view::npos) break;
    start = pos + 1;
  }
  return parts;
}

std::string join(const std::vector<std::string_view>& parts, size_t count) {
  std::string s;
  for (size_t i = 0; i < count; ++i) {
    if (i > 0) s += ':';
    s += parts[i];
  }
  return s;
}

std::string_view basename(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// The ':' between PATH and SYMBOL in "PATH:SYMBOL": the last one that is
// not part of a C++ "::" and not inside a quoted symbol, so both
// "/a:b/x:f" and "./server:ns::Server::handle*" split where the user meant.
size_t symbol_separator(std::string_view s) {
  size_t quote = s.find_first_of("'\"");
  size_t end = quote == std::string_view::npos ? s.size() : quote;
  if (quote != std::string_view::npos)
    return quote > 0 && s[quote - 1] == ':' ? quote - 1 : std::string_view::npos;
  for (size_t i = end; i-- > 0;) {
    if (s[i] != ':') continue;
    bool left = i > 0 && s[i - 1] == ':';
    bool right = i + 1 < s.size() && s[i + 1] == ':';
    if (left) {
      --i;  // skip the pair
      continue;
    }
    if (!right) return i;
  }
  return std::string_view::npos;
}

Error bad(std::string_view text, const std::string& why) {
  return Error("invalid probe '" + std::string(text) + "': " + why);
}

// usdt:PATH:PROVIDER:NAME or usdt:PATH:NAME (the provider any).
Status parse_usdt(std::string_view text, const std::vector<std::string_view>& parts,
                  ProbeSpec& spec) {
  if (parts.size() < 3) return bad(text, "expected usdt:PATH:PROVIDER:NAME or usdt:PATH:NAME");
  if (parts.size() == 3) {
    spec.path = std::string(parts[1]);
    spec.provider.assign(1, '*');  // any (not operator=: a GCC 12 -Wrestrict false alarm)
    spec.name = std::string(parts[2]);
  } else {
    // Everything before the last two fields is the path (it may hold ':').
    std::vector<std::string_view> path_parts(parts.begin() + 1, parts.end() - 2);
    spec.path = join(path_parts, path_parts.size());
    spec.provider = std::string(parts[parts.size() - 2]);
    spec.name = std::string(parts.back());
  }
  if (spec.path.empty()) return bad(text, "empty PATH");
  if (spec.provider.empty()) return bad(text, "empty PROVIDER");
  if (spec.name.empty()) return bad(text, "empty NAME");
  return {};
}

Status parse_tracepoint(const std::vector<std::string_view>& parts, ProbeSpec& spec) {
  spec.kind = ProbeKind::tracepoint;
  if (parts.size() != 3 || parts[1].empty() || parts[2].empty()) {
    return Error("bad probe '" + spec.text +
                 "': expected tracepoint:SUBSYS:EVENT, e.g. tracepoint:sched:sched_switch");
  }
  spec.provider = std::string(parts[1]);
  spec.name = std::string(parts[2]);
  return {};
}

// Splits SYMBOL[+OFFSET] of a function probe into the symbol and the offset's
// text ("" without one). A quoted symbol ('ns::f(int)' or "ns::f") is taken as
// written; false when its quote is not closed or text other than +OFFSET
// follows it.
bool split_symbol_offset(std::string_view& symbol, std::string_view& offset_text,
                         std::string* why) {
  bool quoted = symbol.size() >= 2 && (symbol.front() == '\'' || symbol.front() == '"');
  if (!quoted) {
    // The offset is the last '+': C++ symbols never end in "+digits".
    size_t plus = symbol.rfind('+');
    if (plus != std::string_view::npos && plus + 1 < symbol.size() &&
        symbol.find_first_not_of("0123456789abcdefxABCDEFX", plus + 1) == std::string_view::npos) {
      offset_text = symbol.substr(plus + 1);
      symbol = symbol.substr(0, plus);
    }
    return true;
  }
  size_t close = symbol.find(symbol.front(), 1);
  if (close == std::string_view::npos) return *why = "unterminated quote in SYMBOL", false;
  std::string_view after = symbol.substr(close + 1);
  if (!after.empty() && (after.front() != '+' || after.size() == 1)) {
    return *why = "unexpected text after the quoted SYMBOL", false;
  }
  if (!after.empty()) offset_text = after.substr(1);
  symbol = symbol.substr(1, close - 1);
  return true;
}

// A decimal or 0x-hex offset, all of the text.
bool parse_offset(std::string_view off, uint64_t& offset) {
  int base = 10;
  if (off.size() > 2 && off[0] == '0' && (off[1] == 'x' || off[1] == 'X')) {
    off.remove_prefix(2);
    base = 16;
  }
  auto [p, ec] = std::from_chars(off.data(), off.data() + off.size(), offset, base);
  return ec == std::errc() && p == off.data() + off.size();
}

// uprobe:PATH:SYMBOL[+OFFSET] or uretprobe:PATH:SYMBOL.
Status parse_function(std::string_view text, std::string_view type, ProbeSpec& spec) {
  spec.kind = type == "uprobe" ? ProbeKind::uprobe : ProbeKind::uretprobe;
  std::string_view rest = text.substr(type.size() + 1);
  size_t colon = symbol_separator(rest);
  if (colon == std::string_view::npos) {
    return bad(text, "expected " + std::string(type) + ":PATH:SYMBOL");
  }
  spec.path = std::string(rest.substr(0, colon));
  std::string_view symbol = rest.substr(colon + 1);
  std::string_view offset_text;
  std::string why;
  if (!split_symbol_offset(symbol, offset_text, &why)) return bad(text, why);
  if (!offset_text.empty()) {
    if (spec.kind == ProbeKind::uretprobe) return bad(text, "a uretprobe takes no +OFFSET");
    if (!parse_offset(offset_text, spec.offset)) return bad(text, "bad +OFFSET");
    spec.has_offset = true;
  }
  spec.name = std::string(symbol);
  spec.provider = "";
  if (spec.path.empty()) return bad(text, "empty PATH");
  if (spec.name.empty()) return bad(text, "empty SYMBOL");
  return {};
}

// NAME or PROVIDER:NAME: a USDT probe in the files the recording finds.
Status parse_usdt_name(std::string_view text, const std::vector<std::string_view>& parts,
                       ProbeSpec& spec) {
  if (parts.size() == 1) {
    spec.provider.assign(1, '*');  // any (not operator=: a GCC 12 -Wrestrict false alarm)
    spec.name = std::string(parts[0]);
    return {};
  }
  if (parts.size() == 2) {
    spec.provider = std::string(parts[0]);
    spec.name = std::string(parts[1]);
    if (spec.provider.empty()) return bad(text, "empty PROVIDER");
    if (spec.name.empty()) return bad(text, "empty NAME");
    return {};
  }
  return bad(text, "unknown probe type '" + std::string(parts[0]) +
                       "' (expected usdt:PATH:PROVIDER:NAME, PROVIDER:NAME, uprobe:, uretprobe: or "
                       "tracepoint:)");
}

}  // namespace

Result<ProbeSpec> ProbeSpec::parse(std::string_view text) {
  ProbeSpec spec;
  spec.text = std::string(text);
  if (text.empty()) return bad(text, "empty");
  auto parts = split(text, ':');
  std::string_view type = parts[0];
  Status parsed = type == "usdt"                            ? parse_usdt(text, parts, spec)
                  : type == "tracepoint"                    ? parse_tracepoint(parts, spec)
                  : type == "uprobe" || type == "uretprobe" ? parse_function(text, type, spec)
                                                            : parse_usdt_name(text, parts, spec);
  if (!parsed) return parsed.error();
  return spec;
}

bool ProbeSpec::matches_path(std::string_view file_path) const {
  if (path.empty()) return true;
  std::string_view want = path;
  if (want.find('/') == std::string_view::npos) {
    // A bare name: the file name, or a library name without its .so suffix.
    std::string_view file = basename(file_path);
    if (glob_match(want, file)) return true;
    return glob_match(std::string(want) + ".so*", file);
  }
  if (want.front() == '/') return glob_match(want, file_path);
  while (want.substr(0, 2) == "./") want.remove_prefix(2);
  return glob_match(std::string(want), file_path) ||
         glob_match("*/" + std::string(want), file_path);
}

bool ProbeSpec::matches(std::string_view file_path, std::string_view probe_provider,
                        std::string_view probe_name) const {
  if (kind == ProbeKind::tracepoint)
    return glob_match(provider, probe_provider) && glob_match(name, probe_name);
  if (kind != ProbeKind::usdt) {
    // A recorded function probe: provider "uprobe"/"uretprobe", name the
    // demangled symbol, which may carry its parameters ("ns::f(int)").
    if (probe_provider != (kind == ProbeKind::uprobe ? "uprobe" : "uretprobe")) return false;
    std::string symbol = name;
    if (has_offset) symbol.append(1, '+').append(std::to_string(offset));
    return (glob_match(symbol, probe_name) || glob_match(symbol + "(*", probe_name)) &&
           matches_path(file_path);
  }
  return glob_match(provider, probe_provider) && glob_match(name, probe_name) &&
         matches_path(file_path);
}

}  // namespace usdt
