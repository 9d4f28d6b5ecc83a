#include "record/list_targets.h"

#include <cerrno>
#include <filesystem>
#include <optional>

#include "common/hex_text.h"
#include "common/proc_maps.h"
#include "record/diagnostics.h"
#include "record/plan/bpf_arg_plan.h"
#include "record/plan/site_sampling.h"
#include "record/resolve/elf_lookup.h"
#include "record/session/child_process.h"
#include "record/stacks/site_frame.h"

namespace usdt::record {
namespace {

bool selected(const std::vector<ProbeSpec>& filters, const std::string& path,
              const UsdtProbe& probe) {
  if (filters.empty()) return true;
  for (const auto& f : filters) {
    if (f.matches(path, probe.provider, probe.name)) return true;
  }
  return false;
}

// One location's lines of -v: where it is, each argument and how a
// recording with the default options reads it (assuming tracefs is there
// for kernel reads), and what -g fp does there.
void print_location(const UsdtFile& file, const UsdtLocation& loc, uint32_t string_mask,
                    CaptureMode capture, SiteFrameReader& frames, std::ostream& out) {
  out << ", file offset " << hex(loc.file_offset) << ", semaphore ";
  if (loc.semaphore_address == 0) {
    out << "none";
  } else {
    out << hex(loc.semaphore_address) << " (file offset " << hex(loc.semaphore_offset) << ')';
  }
  out << '\n';
  if (loc.args.empty()) out << "    no arguments\n";
  SamplingChoices choices;
  choices.file_base = loc.address - loc.file_offset;
  choices.string_mask = string_mask;
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

// Reads a file's notes; nullopt (after a warning) when it cannot be read.
std::optional<UsdtFile> read_quietly(const std::string& open_path, const std::string& path,
                                     std::ostream& err) {
  Result<UsdtFile> file = read_usdt_file(open_path, path);
  if (!file) {
    // One unreadable library should not hide the others.
    warning(err) << file.error().message() << '\n';
    return std::nullopt;
  }
  return std::move(*file);
}

// Lists the probes of a program's libraries that have some and were not
// listed yet; returns how many libraries had probes.
size_t list_libraries(const std::string& program, const LibraryFinder& finder, ListSink& sink) {
  size_t with_probes = 0;
  for (const std::string& lib : needed_libraries(program, finder)) {
    if (sink.listed.count(lib) != 0) continue;
    std::optional<UsdtFile> file = read_quietly(lib, lib, sink.err);
    if (!file || file->probes.empty()) continue;
    ++with_probes;
    sink.listed.insert(lib);
    std::string header = "# " + lib + ": a library of " + program + "\n";
    sink.printed += print_usdt_file(*file, sink, &header);
  }
  return with_probes;
}

}  // namespace

Result<ListTarget> resolve_list_target(const std::string& target, const LibraryFinder& finder) {
  std::error_code ec;
  if (std::filesystem::exists(target, ec)) return ListTarget{canonical_path(target), {}};
  if (target.find('/') != std::string::npos) {
    return Error("cannot open '" + target + "'", ENOENT);
  }
  if (Result<LibraryFinder::Match> lib = finder.lookup(target)) {
    return ListTarget{canonical_path(lib->path), std::move(lib->others)};
  }
  if (std::string command = find_in_path(target); !command.empty()) {
    return ListTarget{canonical_path(command), {}};
  }
  return Error("'" + target +
               "' is neither a file, nor a library the loader finds, nor a command in PATH");
}

bool list_target(const std::string& target, const LibraryFinder& finder, ListSink& sink) {
  Result<ListTarget> resolved = resolve_list_target(target, finder);
  if (!resolved) {
    print_error(sink.err, resolved.error());
    return false;
  }
  const std::string& path = resolved->path;
  if (!resolved->others.empty()) {
    note(sink.err) << "'" << target << "' also names " << resolved->others.front()
                   << (resolved->others.size() > 1 ? " (and more)" : "") << "; listing " << path
                   << ": name the file to choose\n";
  }
  if (sink.listed.count(path) != 0) return true;
  Result<UsdtFile> file = read_usdt_file(path, path);
  if (!file) {
    print_error(sink.err, file.error());
    return false;
  }
  sink.listed.insert(path);
  std::string header = target == path ? "" : "# " + target + ": " + path + "\n";
  sink.printed += print_usdt_file(*file, sink, &header);
  const bool program = is_dynamic_executable(path);
  const size_t libraries = program ? list_libraries(path, finder, sink) : 0;
  if (file->probes.empty() && libraries == 0) {
    note(sink.err) << "'" << path << "'" << (target == path ? "" : " (" + target + ")")
                   << (program ? " and the libraries it needs have" : " has")
                   << " no USDT probes\n";
  }
  return true;
}

bool list_process(pid_t pid, ListSink& sink) {
  auto files = mapped_elf_files(pid);
  if (!files) {
    print_error(sink.err, files.error());
    int e = files.error().errno_value();
    if (e == EACCES || e == EPERM) sink.err << "hint: run as root to read other users' processes\n";
    return false;
  }
  size_t with_probes = 0;
  for (const auto& f : *files) {
    std::optional<UsdtFile> file = read_quietly(f.open_path, f.path, sink.err);
    if (!file || file->probes.empty()) continue;
    ++with_probes;
    if (!sink.listed.insert(f.path).second) continue;
    sink.printed += print_usdt_file(*file, sink);
  }
  if (with_probes == 0) note(sink.err) << "no file mapped by PID " << pid << " has USDT probes\n";
  return true;
}

size_t print_usdt_file(const UsdtFile& file, const ListSink& sink, std::string* header) {
  const std::vector<ProbeSpec>& filters = sink.filters;
  std::ostream& out = sink.out;
  size_t count = 0;
  SiteFrameReader frames;  // -v: what -g fp does at each location
  for (const auto& probe : file.probes) {
    if (!selected(filters, file.path, probe)) continue;
    ++count;
    if (header != nullptr && !header->empty()) {
      out << *header;
      header->clear();
    }
    out << "usdt:" << file.path << ':' << probe.provider << ':' << probe.name << '\n';
    if (!sink.options.verbose) continue;
    uint32_t string_mask = 0;  // the --string patterns that select this probe
    for (const StringArgs& s : sink.options.strings) {
      if (s.probe.matches(file.path, probe.provider, probe.name)) string_mask |= s.arg_mask;
    }
    size_t n = 0;
    for (const auto& loc : probe.locations) {
      out << "  location " << ++n << '/' << probe.locations.size() << ": address "
          << hex(loc.address);
      print_location(file, loc, string_mask, sink.options.capture, frames, out);
    }
  }
  return count;
}

}  // namespace usdt::record
