#include "record/list_command.h"

#include <elf.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <filesystem>

#include "common/glob_match.h"
#include "common/hex_text.h"
#include "common/library_finder.h"
#include "common/proc_maps.h"
#include "record/diagnostics.h"
#include "record/plan/bpf_arg_plan.h"
#include "record/plan/site_sampling.h"
#include "record/resolve/function_listing.h"
#include "record/resolve/function_params.h"
#include "record/resolve/function_symbols.h"
#include "record/resolve/tracepoint_sites.h"
#include "record/stacks/site_frame.h"

namespace usdt::record {
namespace {

bool selected(const std::vector<ProbeSpec>& filters, const std::string& path, const UsdtProbe& probe) {
  if (filters.empty()) return true;
  for (const auto& f : filters) {
    if (f.matches(path, probe.provider, probe.name)) return true;
  }
  return false;
}

// A target's path: an existing file as given, else a library by name.
Result<std::string> resolve_target(const std::string& target, const LibraryFinder& finder) {
  std::error_code ec;
  if (std::filesystem::exists(target, ec)) {
    // Absolute, so that a listed line can be pasted into -e from anywhere.
    auto absolute = std::filesystem::absolute(target, ec);
    return ec ? target : absolute.lexically_normal().string();
  }
  if (target.find('/') != std::string::npos) {
    return Error("cannot open '" + target + "'", ENOENT);
  }
  auto found = finder.find(target);
  if (!found) {
    return Error("'" + target + "' is neither a file nor a library name found by the loader");
  }
  return *found;
}

// Lists one file; returns false (after printing the error) on failure.
bool list_file(const std::string& open_path, const std::string& display_path,
               const std::vector<ProbeSpec>& filters, const RecordOptions& options,
               bool quiet_when_empty, std::ostream& out, std::ostream& err, size_t* printed) {
  auto file = read_usdt_file(open_path, display_path);
  if (!file) {
    print_error(err, file.error());
    return false;
  }
  if (file->probes.empty()) {
    if (!quiet_when_empty) note(err) << "'" << file->path << "' has no USDT probes\n";
    return true;
  }
  *printed +=
      print_usdt_file(*file, filters, options.verbose, out, options.strings, options.capture);
  return true;
}

// Lists the functions a uprobe/uretprobe spec selects in its file, one per
// line as uprobe:PATH:SYMBOL (-v: address, size, file offset, binding);
// returns false (after printing the error) when the file cannot be read.
bool list_functions(const ProbeSpec& spec, bool verbose, const std::vector<StringArgs>& strings,
                    CaptureMode capture, const LibraryFinder& finder, std::ostream& out,
                    std::ostream& err, size_t* printed) {
  if (has_wildcard(spec.path)) {
    print_error(err, Error("cannot list '" + spec.text + "': name one file, without wildcards"));
    return false;
  }
  auto path = resolve_target(spec.path, finder);
  if (!path) {
    print_error(err, path.error());
    return false;
  }
  auto functions = read_function_symbols(*path);
  if (!functions) {
    print_error(err, functions.error());
    return false;
  }
  const bool ret = spec.kind == ProbeKind::uretprobe;
  const char* kind = ret ? "uretprobe:" : "uprobe:";
  FunctionParamReader params;
  SiteFrameReader frames;
  for (const FunctionSymbol& f : select_functions(*functions, spec.name)) {
    ++*printed;
    out << kind << *path << ':' << f.display << '\n';
    if (!verbose) continue;
    out << "  address " << hex(f.address) << ", size " << f.size << ", file offset "
        << hex(f.file_offset) << ", "
        << (f.binding == STB_LOCAL ? "local" : f.binding == STB_WEAK ? "weak" : "global")
        << (f.dynamic ? " (.dynsym)" : " (.symtab)");
    if (f.raw != f.display) out << ", symbol " << f.raw;
    if (f.ifunc) out << ", IFUNC: the resolver, not the code calls run (cannot be probed)";
    out << '\n';
    if (f.ifunc) continue;
    FunctionParams args = params.read(*path, f.file_offset, spec.offset, ret);
    std::string name = f.display;
    if (spec.has_offset) name.append("+").append(std::to_string(spec.offset));
    const uint32_t strings_mask =
        function_string_mask(strings, *path, ret ? "uretprobe" : "uprobe", name, args);
    print_function_args(args, ret, f.address - f.file_offset, out, strings_mask, capture);
    // A uretprobe's hit is in the caller, after the return: no frame of its own.
    if (ret) continue;
    SiteFrame frame = frames.at(*path, f.address + spec.offset, f.file_offset + spec.offset,
                                spec.offset == 0);
    out << "    call frame: " << describe_site_frame(frame) << '\n';
  }
  return true;
}

}  // namespace

size_t print_usdt_file(const UsdtFile& file, const std::vector<ProbeSpec>& filters, bool verbose,
                       std::ostream& out, const std::vector<StringArgs>& strings,
                       CaptureMode capture) {
  // The --string patterns.
  std::vector<std::pair<ProbeSpec, uint32_t>> string_specs;
  for (const StringArgs& s : strings) {
    string_specs.emplace_back(s.probe, s.arg_mask);
  }
  size_t count = 0;
  SiteFrameReader frames;  // -v: what -g fp does at each location
  for (const auto& probe : file.probes) {
    if (!selected(filters, file.path, probe)) continue;
    ++count;
    out << "usdt:" << file.path << ':' << probe.provider << ':' << probe.name << '\n';
    if (!verbose) continue;
    size_t n = 0;
    for (const auto& loc : probe.locations) {
      ++n;
      out << "  location " << n << '/' << probe.locations.size() << ": address " << hex(loc.address)
          << ", file offset " << hex(loc.file_offset) << ", semaphore ";
      if (loc.semaphore_address == 0) {
        out << "none";
      } else {
        out << hex(loc.semaphore_address) << " (file offset " << hex(loc.semaphore_offset) << ')';
      }
      out << '\n';
      if (loc.args.empty()) out << "    no arguments\n";
      // How a recording with the default options reads each argument
      // (assuming tracefs is available for kernel reads).
      SamplingChoices choices;
      choices.file_base = loc.address - loc.file_offset;
      for (const auto& [spec, mask] : string_specs) {
        if (spec.matches(file.path, probe.provider, probe.name)) choices.string_mask |= mask;
      }
      SiteSampling plan = plan_site_sampling(loc.args, file.arch, choices);
      BpfSitePlan bpf = plan_bpf_site(loc.args, file.arch, choices, loc.address);
      for (size_t i = 0; i < loc.args.size(); ++i) {
        const ArgSpec& a = loc.args[i];
        ArgListing how = list_arg_paths(plan, bpf, i, capture);
        out << "    arg" << i << ": " << a.text << "  " << describe(a, file.arch) << "  ["
            << how.bracket << "]\n";
        if (!how.bpf_line.empty()) out << "      " << how.bpf_line << '\n';
      }
      if (file.arch == Arch::x86_64) {
        out << "    call frame: "
            << describe_site_frame(frames.at(file.open_path, loc.address, loc.file_offset)) << '\n';
      }
    }
  }
  return count;
}

int run_list_command(const RecordOptions& options, std::ostream& out, std::ostream& err) {
  std::vector<ProbeSpec> filters;
  std::vector<ProbeSpec> function_specs;  // uprobe:PATH:PATTERN, listed from their own PATH
  std::vector<std::string> targets;
  std::vector<ProbeSpec> tracepoints;  // tracepoint:SUBSYS:EVENT patterns
  auto file_under = [&](ProbeSpec spec) {
    switch (spec.kind) {
      case ProbeKind::tracepoint: tracepoints.push_back(std::move(spec)); break;
      case ProbeKind::usdt: filters.push_back(std::move(spec)); break;
      default: function_specs.push_back(std::move(spec)); break;
    }
  };
  for (const ProbeSpec& spec : options.probes) file_under(spec);
  for (const auto& arg : options.list_args) {
    std::error_code ec;
    bool is_file = std::filesystem::exists(arg, ec);
    if (!is_file && arg.find(':') != std::string::npos) {
      Result<ProbeSpec> spec = ProbeSpec::parse(arg);
      if (!spec) {
        print_error(err, spec.error());
        return 2;
      }
      file_under(std::move(*spec));
      continue;
    }
    targets.push_back(arg);
  }
  int tracepoint_status = 0;
  if (!tracepoints.empty()) {
    tracepoint_status = list_tracepoints(tracepoints, options.verbose, out, err);
    if (tracepoint_status == 2) return 2;
    if (targets.empty() && options.pids.empty() && filters.empty() && function_specs.empty()) {
      return tracepoint_status;
    }
  }
  bool failed = tracepoint_status != 0;
  size_t printed = 0;
  LibraryFinder finder = LibraryFinder::system();
  if (!function_specs.empty()) {
    for (const ProbeSpec& spec : function_specs) {
      if (!list_functions(spec, options.verbose, options.strings, options.capture, finder, out, err,
                          &printed)) {
        failed = true;
      }
    }
    if (targets.empty() && options.pids.empty()) {
      if (printed == 0 && !failed) note(err) << "no function matches the given patterns\n";
      out.flush();
      return failed ? 1 : 0;
    }
  }
  if (targets.empty() && options.pids.empty()) {
    err << "usdt-record: error: no TARGET to list (patterns given: " << filters.size() << ")\n"
        << "hint: name the file or library whose probes to list, e.g. usdt-record -l '"
        << (options.list_args.empty() ? "PROVIDER:NAME" : options.list_args.front())
        << "' /usr/bin/python3.11, or a running process with -p PID\n";
    return 2;
  }

  for (const auto& target : targets) {
    auto path = resolve_target(target, finder);
    if (!path) {
      print_error(err, path.error());
      failed = true;
      continue;
    }
    if (!list_file(*path, *path, filters, options, false, out, err, &printed)) failed = true;
  }
  for (pid_t pid : options.pids) {
    auto files = mapped_elf_files(pid);
    if (!files) {
      print_error(err, files.error());
      int e = files.error().errno_value();
      if (e == EACCES || e == EPERM) err << "hint: run as root to read other users' processes\n";
      failed = true;
      continue;
    }
    size_t with_probes = 0;
    for (const auto& f : *files) {
      auto file = read_usdt_file(f.open_path, f.path);
      if (!file) {
        // One unreadable library should not hide the others.
        warning(err) << file.error().message() << '\n';
        continue;
      }
      if (file->probes.empty()) continue;
      ++with_probes;
      printed +=
          print_usdt_file(*file, filters, options.verbose, out, options.strings, options.capture);
    }
    if (with_probes == 0) {
      note(err) << "no file mapped by PID " << pid << " has USDT probes\n";
    }
  }
  if (!filters.empty() && printed == 0 && !failed) {
    note(err) << "no probe matches the given patterns\n";
  }
  out.flush();
  return failed ? 1 : 0;
}

}  // namespace usdt::record
