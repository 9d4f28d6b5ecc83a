// usdt-record -l on TARGETs and -p processes: the USDT probes of files,
// libraries (by name, as the loader finds them) and running processes.
//
// Every file is shown by its canonical path (symbolic links resolved), the
// spelling /proc/PID/maps uses, so that -l, -l -p and a recording name one
// file alike. A TARGET typed otherwise gets a line "# TARGET: PATH" before
// its probes. A program (a file with PT_INTERP) is listed with the probes of
// the libraries it needs (DT_NEEDED, as a recording of it searches them),
// each library after a line "# LIBRARY: a library of PROGRAM". Those lines
// start with '#' so that every other line stays a probe to paste into -e.
// Each file is listed once, however many targets or processes lead to it.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "common/library_finder.h"
#include "common/probe_spec.h"
#include "common/usdt_probe.h"
#include "record/record_options.h"

namespace usdt::record {

// A TARGET resolved: an existing file; else a library name found as the
// loader would; else a command found through PATH.
struct ListTarget {
  std::string path;                 // canonical
  std::vector<std::string> others;  // other libraries a short name matched
};
Result<ListTarget> resolve_list_target(const std::string& target, const LibraryFinder& finder);

// What the listers share: the filters, the options, where to print, what
// was printed.
struct ListSink {
  const std::vector<ProbeSpec>& filters;
  const RecordOptions& options;
  std::ostream& out;
  std::ostream& err;
  size_t printed = 0;            // probes printed
  std::set<std::string> listed;  // files listed, by canonical path
};

// Lists one TARGET (and a program's libraries); false, after printing the
// error, when the target cannot be found or read.
bool list_target(const std::string& target, const LibraryFinder& finder, ListSink& sink);

// Lists the files a process maps; false, after printing the error, when its
// mappings cannot be read.
bool list_process(pid_t pid, ListSink& sink);

// Prints the probes of one file that match the filters (all when empty);
// returns how many were printed. With verbose, each argument's line says how
// a recording reads it, --string (strings) included: on the path --capture
// names, and with auto on both (record/plan/bpf_arg_plan.h). A non-empty
// *header is printed before the first probe line, then cleared.
size_t print_usdt_file(const UsdtFile& file, const ListSink& sink, std::string* header = nullptr);

}  // namespace usdt::record
