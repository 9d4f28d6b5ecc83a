#include "record/list_command.h"

#include <filesystem>
#include <string>
#include <vector>

#include "common/library_finder.h"
#include "record/diagnostics.h"
#include "record/list_functions.h"
#include "record/list_targets.h"
#include "record/resolve/tracepoint_sites.h"

namespace usdt::record {
namespace {

// The listing's arguments sorted by what lists them.
struct ListRequest {
  std::vector<ProbeSpec> filters;         // USDT patterns
  std::vector<ProbeSpec> function_specs;  // uprobe:PATH:PATTERN, listed from their own PATH
  std::vector<ProbeSpec> tracepoints;     // tracepoint:SUBSYS:EVENT patterns
  std::vector<std::string> targets;

  void add(ProbeSpec spec) {
    switch (spec.kind) {
      case ProbeKind::tracepoint:
        tracepoints.push_back(std::move(spec));
        break;
      case ProbeKind::usdt:
        filters.push_back(std::move(spec));
        break;
      default:
        function_specs.push_back(std::move(spec));
        break;
    }
  }
};

// -e specs and the positional arguments: an existing file is a TARGET, an
// argument with ':' a PATTERN, anything else a TARGET by name.
Result<ListRequest> sort_arguments(const RecordOptions& options) {
  ListRequest r;
  for (const ProbeSpec& spec : options.probes) r.add(spec);
  for (const auto& arg : options.list_args) {
    std::error_code ec;
    bool is_file = std::filesystem::exists(arg, ec);
    if (is_file || arg.find(':') == std::string::npos) {
      r.targets.push_back(arg);
      continue;
    }
    Result<ProbeSpec> spec = ProbeSpec::parse(arg);
    if (!spec) return spec.error();
    r.add(std::move(*spec));
  }
  return r;
}

int no_target_error(const RecordOptions& options, const ListRequest& r, std::ostream& err) {
  err << "usdt-record: error: no TARGET to list (patterns given: " << r.filters.size() << ")\n"
      << "hint: name the file or library whose probes to list, e.g. usdt-record -l '"
      << (options.list_args.empty() ? "PROVIDER:NAME" : options.list_args.front())
      << "' /usr/bin/python3.11, or a running process with -p PID\n";
  return 2;
}

}  // namespace

int run_list_command(const RecordOptions& options, std::ostream& out, std::ostream& err) {
  Result<ListRequest> request = sort_arguments(options);
  if (!request) {
    print_error(err, request.error());
    return 2;
  }
  const ListRequest& r = *request;
  const bool files_given = !r.targets.empty() || !options.pids.empty();
  bool failed = false;
  if (!r.tracepoints.empty()) {
    int status = list_tracepoints(r.tracepoints, options.verbose, out, err);
    if (status == 2) return 2;
    failed = status != 0;
    if (!files_given && r.filters.empty() && r.function_specs.empty()) return status;
  }
  LibraryFinder finder = LibraryFinder::system();
  ListSink sink{r.filters, options, out, err, 0, {}};
  for (const ProbeSpec& spec : r.function_specs) {
    if (!list_functions(spec, options.verbose, options.strings, options.capture, finder, out, err,
                        &sink.printed)) {
      failed = true;
    }
  }
  if (!r.function_specs.empty() && !files_given) {
    if (sink.printed == 0 && !failed) note(err) << "no function matches the given patterns\n";
    out.flush();
    return failed ? 1 : 0;
  }
  if (!files_given) return no_target_error(options, r, err);
  for (const auto& target : r.targets) {
    if (!list_target(target, finder, sink)) failed = true;
  }
  for (pid_t pid : options.pids) {
    if (!list_process(pid, sink)) failed = true;
  }
  if (!r.filters.empty() && sink.printed == 0 && !failed) {
    note(err) << "no probe matches the given patterns\n";
  }
  out.flush();
  return failed ? 1 : 0;
}

}  // namespace usdt::record
