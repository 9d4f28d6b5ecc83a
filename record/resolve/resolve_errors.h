// The errors of resolving -e specs that the user can act on: a spec that
// matches nothing (with the closest probes, "did you mean"), and a uprobe on
// an IFUNC (with its implementations). Each is one line and at most one hint.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "common/probe_spec.h"
#include "common/result.h"
#include "record/resolve/function_symbols.h"

namespace usdt::record {

// What was searched for a spec that matched nothing.
struct NoMatch {
  std::vector<std::string> files;  // the searched files' paths
  std::set<std::string> probes;    // their probes, "provider:name"
  std::set<std::string> skipped;   // why searched files could not be read
  // The probe may still come with a library loaded later (a PROVIDER:NAME,
  // which the recording looks for in the libraries the traced processes
  // load): the hint says that --allow-missing waits for it.
  bool may_load_later = false;
};

// "probe 'ruby:method_entry' matches nothing in 2 files (...); did you mean
// ruby:method__entry?", then one hint: --allow-missing for a library loaded
// later, or how to list the probes there.
Error no_match_error(const ProbeSpec& spec, const NoMatch& searched);

// A uprobe naming an IFUNC in path: its implementations (the names in
// `all` that extend the IFUNC's), when the file names them.
Error ifunc_error(const ProbeSpec& spec, const std::string& path, const FunctionSymbol& ifunc,
                  const std::vector<FunctionSymbol>* all);

// The paths, the first 10 of them, comma-separated.
std::string file_names(const std::vector<std::string>& paths);

}  // namespace usdt::record
