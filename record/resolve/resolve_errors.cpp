#include "record/resolve/resolve_errors.h"

#include <algorithm>

#include "common/closest_match.h"

namespace usdt::record {
namespace {

constexpr size_t kSuggestions = 3;

// The part of "provider:name" a spec is compared with: all of it, or the
// name alone when the spec names any provider.
std::string compared(const ProbeSpec& spec, const std::string& probe) {
  return spec.provider == "*" ? probe.substr(probe.find(':') + 1) : probe;
}

// The searched probes closest to the spec, nearest first: those close
// enough (closest_match.h) and at most one edit farther than the nearest.
std::vector<std::string> suggestions(const ProbeSpec& spec, const std::set<std::string>& probes) {
  const std::string word = spec.provider == "*" ? spec.name : spec.provider + ":" + spec.name;
  std::vector<std::string> keys;
  for (const std::string& p : probes) keys.push_back(compared(spec, p));
  std::vector<std::string> out;
  size_t nearest = 0;
  for (const std::string& key : closest_matches(word, keys, kSuggestions)) {
    const size_t d = edit_distance(word, key);
    if (out.empty()) nearest = d;
    if (d > nearest + 1) break;
    for (const std::string& p : probes) {
      if (compared(spec, p) == key && out.size() < kSuggestions) out.push_back(p);
    }
  }
  return out;
}

std::string or_list(const std::vector<std::string>& names) {
  std::string text;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i != 0) text += i + 1 == names.size() ? " or " : ", ";
    text += names[i];
  }
  return text;
}

}  // namespace

Error no_match_error(const ProbeSpec& spec, const NoMatch& searched) {
  const size_t n = searched.files.size();
  std::string msg = "probe '" + spec.text + "' matches nothing in " + std::to_string(n) +
                    (n == 1 ? " file (" : " files (") + file_names(searched.files) + ")";
  for (const std::string& s : searched.skipped) msg += "; skipped " + s;
  std::vector<std::string> close = suggestions(spec, searched.probes);
  if (searched.probes.empty()) {
    msg += n == 1 ? ", which has no USDT probes" : ", which have no USDT probes";
  } else if (!close.empty()) {
    msg += "; did you mean " + or_list(close) + "?";
  } else {
    msg += "; " + std::to_string(searched.probes.size()) + " other probes there";
  }
  if (!searched.skipped.empty() && spec.path.empty()) {
    // The command found in PATH was no program (pyenv's shims, a shell
    // wrapper): its interpreter's files were not searched.
    msg +=
        "\nhint: a command started through a wrapper script is not searched: name the "
        "program's file, usdt:/path/to/program:" +
        spec.provider + ":" + spec.name;
  } else if (searched.may_load_later) {
    msg +=
        "\nhint: if a library the program loads later (dlopen: libjvm.so under java, "
        "plugins) has it, --allow-missing attaches it then";
  } else if (n == 1 && !searched.probes.empty()) {
    msg += "\nhint: list the probes with usdt-record -l " + searched.files.front();
  }
  return Error(msg);
}

Error ifunc_error(const ProbeSpec& spec, const std::string& path, const FunctionSymbol& ifunc,
                  const std::vector<FunctionSymbol>* all) {
  std::vector<std::string> implementations;
  if (all != nullptr) {
    for (const FunctionSymbol& f : *all) {
      if (!f.ifunc && f.raw != ifunc.raw && f.raw.find(ifunc.raw + "_") != std::string::npos)
        implementations.push_back(f.raw);
    }
  }
  std::string msg = "probe '" + spec.text + "': " + ifunc.display + " in '" + path +
                    "' is an IFUNC: its address is the resolver the dynamic linker runs to "
                    "pick an implementation, not the code calls run, so a probe there would "
                    "count bindings, not calls";
  if (implementations.empty()) {
    return Error(msg +
                 "\nhint: this file names none of its implementations (a stripped library); "
                 "probe its callers instead");
  }
  std::sort(implementations.begin(), implementations.end());
  implementations.erase(std::unique(implementations.begin(), implementations.end()),
                        implementations.end());
  std::string names;
  for (const std::string& name : implementations) names += (names.empty() ? "" : ", ") + name;
  return Error(msg + "\nhint: probe its implementations (" + names + "), e.g. -e '" +
               (spec.kind == ProbeKind::uretprobe ? "uretprobe:" : "uprobe:") + spec.path + ":*" +
               ifunc.raw + "_*'");
}

std::string file_names(const std::vector<std::string>& paths) {
  constexpr size_t kShown = 10;
  std::string names;
  for (size_t i = 0; i < paths.size() && i < kShown; ++i) {
    if (i != 0) names += ", ";
    names += paths[i];
  }
  if (paths.size() > kShown) names += ", ...";
  return names;
}

}  // namespace usdt::record
