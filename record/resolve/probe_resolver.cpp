#include "record/resolve/probe_resolver.h"

#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "common/glob_match.h"
#include "common/library_finder.h"
#include "common/probe_spec.h"
#include "common/proc_maps.h"
#include "common/usdt_probe.h"
#include "record/plan/site_sampling.h"
#include "record/resolve/elf_lookup.h"
#include "record/resolve/function_params.h"
#include "record/resolve/function_symbols.h"
#include "record/resolve/resolve_errors.h"
#include "record/resolve/mount_namespace.h"

namespace usdt::record {
namespace {

struct SearchFile {
  std::string path;       // display
  std::string open_path;  // for reading and for the kernel
  bool named = false;     // the user named it (a read error is then fatal)
};

bool is_regular_file(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// The one place a function site gets its arguments: its parameters (or
// return value) from DWARF, else the ABI registers (record/resolve/function_params.h).
void set_function_args(ResolvedSite& site, FunctionParams params) {
  site.args = std::move(params.args);
  site.arg_names = std::move(params.names);
  site.arg_types = std::move(params.types);
  site.arg_pointers = std::move(params.pointers);
  site.args_fallback = std::move(params.fallback);
  site.args_hint = std::move(params.hint);
}

// The sites of a file's USDT probes whose names spec selects.
std::vector<ResolvedSite> usdt_sites(const ProbeSpec& spec, const UsdtFile& usdt,
                                     const std::string& path, const std::string& open_path) {
  std::vector<ResolvedSite> sites;
  for (const UsdtProbe& probe : usdt.probes) {
    if (!glob_match(spec.provider, probe.provider) || !glob_match(spec.name, probe.name)) continue;
    for (const UsdtLocation& loc : probe.locations) {
      ResolvedSite& site = sites.emplace_back();
      site.kind = format::ProbeKind::usdt;
      site.path = path;
      site.open_path = open_path;
      site.build_id = usdt.build_id;
      site.provider = probe.provider;
      site.name = probe.name;
      site.file_offset = loc.file_offset;
      site.semaphore_offset = loc.semaphore_offset;
      site.file_base = loc.address - loc.file_offset;
      site.arch = usdt.arch;
      site.args = loc.args;
    }
  }
  return sites;
}

class Resolver {
 public:
  Resolver(const SearchScope& scope, size_t max_functions)
      : finder_(LibraryFinder::system()),
        max_functions_(max_functions),
        follow_(scope.follow),
        mount_ns_of_(scope.mount_ns_of) {
    if (!scope.command_binary.empty()) {
      const std::string binary = canonical_path(scope.command_binary);
      add_search_file({binary, binary});
      for (const std::string& lib : needed_libraries(binary, finder_)) {
        add_search_file({lib, lib});
      }
    }
    for (pid_t pid : scope.pids) {
      Result<std::vector<MappedFile>> files = mapped_elf_files(pid);
      if (!files) {
        scope_error_ = files.error();
        continue;
      }
      for (const MappedFile& f : *files) add_search_file({f.path, f.open_path});
    }
  }

  Status resolve(const ProbeSpec& parsed) {
    const std::string& text = parsed.text;
    const ProbeSpec* spec = &parsed;
    const bool may_wait = follow_ && spec->kind == ProbeKind::usdt && spec->path.empty();
    if (may_wait && search_.empty()) {
      waiting_.emplace_back(text, "probe '" + text + "' matches nothing: no file to search yet");
      return Status::success();
    }
    Result<std::vector<SearchFile>> files = files_for(*spec);
    if (!files) return files.error();
    for (const SearchFile& f : *files) searched_.insert(f.open_path);
    if (spec->kind != ProbeKind::usdt) return resolve_function(*spec, *files);

    size_t matched = 0;
    for (const SearchFile& file : *files) {
      Result<const UsdtFile*> usdt = read(file);
      if (!usdt) {
        // A searched file that is not ELF (a wrapper script found in PATH,
        // say) has no probes; one the user named is an error.
        if (file.named) return usdt.error();
        skipped_.insert(usdt.error().message());
        continue;
      }
      for (ResolvedSite& site : usdt_sites(*spec, **usdt, file.path, file.open_path)) {
        ++matched;
        add_site(std::move(site));
      }
    }
    if (matched == 0 && may_wait) {
      waiting_.emplace_back(text, no_match(*spec, *files).message());
      return Status::success();
    }
    if (matched == 0) return no_match(*spec, *files);
    return Status::success();
  }

  std::vector<ResolvedSite> take_sites() { return std::move(sites_); }
  void take_notes(ResolveNotes& notes) {
    notes.waiting = std::move(waiting_);
    notes.warnings = std::move(warnings_);
    for (const SearchFile& f : search_) searched_.insert(f.open_path);
    notes.searched.assign(searched_.begin(), searched_.end());
  }

 private:
  void add_search_file(SearchFile f) {
    for (const SearchFile& existing : search_) {
      if (existing.path == f.path) return;
    }
    search_.push_back(std::move(f));
  }

  void add_site(ResolvedSite site) {
    auto key = std::make_tuple(site.open_path, site.file_offset, site.kind);
    if (!seen_.insert(key).second) return;
    sites_.push_back(std::move(site));
  }

  Result<const UsdtFile*> read(const SearchFile& f) {
    auto it = cache_.find(f.open_path);
    if (it == cache_.end()) {
      Result<UsdtFile> file = read_usdt_file(f.open_path, f.path);
      if (!file) return file.error();
      it = cache_.emplace(f.open_path, std::move(*file)).first;
    }
    return &it->second;
  }

  // The files a spec looks in.
  Result<std::vector<SearchFile>> files_for(const ProbeSpec& spec) {
    if (spec.path.empty()) {
      if (search_.empty()) {
        if (scope_error_) return *scope_error_;
        return Error("probe '" + spec.text +
                     "' names no file: with -a, write usdt:PATH:PROVIDER:NAME");
      }
      return search_;
    }
    std::vector<SearchFile> files;
    for (const SearchFile& f : search_) {
      if (spec.matches_path(f.path)) files.push_back(f);
    }
    if (!files.empty() || has_wildcard(spec.path)) {
      if (files.empty())
        return Error("probe '" + spec.text + "': no searched file matches '" + spec.path + "'");
      return files;
    }
    if (mount_ns_of_ != 0 && !spec.path.empty() && spec.path[0] == '/') {
      // The trace shows the path as the container's processes map it.
      Result<std::string> open_path = path_in_mount_namespace(mount_ns_of_, spec.path);
      if (!open_path) return open_path.error().context("probe '" + spec.text + "'");
      return std::vector<SearchFile>{{spec.path, *open_path, true}};
    }
    if (spec.path.find('/') != std::string::npos || is_regular_file(spec.path)) {
      if (!is_regular_file(spec.path))
        return Error("probe '" + spec.text + "': no file '" + spec.path + "'");
      char* real = realpath(spec.path.c_str(), nullptr);
      std::string path = real != nullptr ? real : spec.path;
      free(real);
      return std::vector<SearchFile>{{path, path, true}};
    }
    Result<std::string> lib = finder_.find(spec.path);
    if (!lib) return lib.error().context("probe '" + spec.text + "'");
    const std::string path = canonical_path(*lib);
    return std::vector<SearchFile>{{path, path, true}};
  }

  // uprobe/uretprobe: every function of the files whose name the symbol
  // pattern selects, one site per address (record/resolve/function_symbols.h).
  Status resolve_function(const ProbeSpec& spec, const std::vector<SearchFile>& files) {
    const bool ret = spec.kind == ProbeKind::uretprobe;
    struct Match {
      const SearchFile* file;
      FunctionSymbol function;
    };
    std::vector<Match> matches;
    std::vector<Match> ifuncs;  // matched, left out
    for (const SearchFile& file : files) {
      Result<const std::vector<FunctionSymbol>*> functions = functions_of(file);
      if (!functions) {
        if (file.named) return functions.error().context("probe '" + spec.text + "'");
        continue;
      }
      for (FunctionSymbol& f : select_functions(**functions, spec.name)) {
        if (f.ifunc) {
          ifuncs.push_back({&file, std::move(f)});
          continue;
        }
        matches.push_back({&file, std::move(f)});
      }
    }
    if (!ifuncs.empty()) {
      if (!has_wildcard(spec.name) || matches.empty()) {
        const SearchFile& file = *ifuncs.front().file;
        Result<const std::vector<FunctionSymbol>*> all = functions_of(file);
        return ifunc_error(spec, file.path, ifuncs.front().function, all ? *all : nullptr);
      }
      std::string names;
      for (size_t i = 0; i < ifuncs.size() && i < 5; ++i)
        names += (i == 0 ? "" : ", ") + ifuncs[i].function.display;
      if (ifuncs.size() > 5) names += ", ...";
      warnings_.push_back("probe '" + spec.text + "': left out " + std::to_string(ifuncs.size()) +
                          (ifuncs.size() == 1 ? " IFUNC" : " IFUNCs") + " (" + names +
                          "): a probe there would count the dynamic linker's bindings, not calls");
    }
    if (matches.empty()) {
      std::string where = files.size() == 1 ? "'" + files[0].path + "'"
                                            : std::to_string(files.size()) + " files (" +
                                                  file_names(paths_of(files)) + ")";
      return Error("probe '" + spec.text + "': no function matches '" + spec.name + "' in " +
                   where + "\nhint: list the functions with usdt-record -l 'uprobe:" +
                   (spec.path.empty() ? std::string("PATH") : spec.path) + ":*'");
    }
    if (matches.size() > max_functions_) {
      return Error("probe '" + spec.text + "' matches " + std::to_string(matches.size()) +
                   " functions, more than the limit of " + std::to_string(max_functions_) +
                   "\nhint: narrow the pattern, or raise the limit with --max-functions " +
                   std::to_string(matches.size()));
    }
    for (const Match& m : matches) {
      const FunctionSymbol& f = m.function;
      if (spec.offset != 0 && (f.size == 0 || spec.offset >= f.size)) {
        return Error("probe '" + spec.text + "': offset " + std::to_string(spec.offset) +
                     " is beyond the function " + f.display + " in '" + m.file->path + "' (" +
                     (f.size == 0 ? std::string("its size is unknown") :
                                    std::to_string(f.size) + " bytes") + ")");
      }
      ResolvedSite site;
      site.kind = ret ? format::ProbeKind::uretprobe : format::ProbeKind::uprobe;
      site.path = m.file->path;
      site.open_path = m.file->open_path;
      site.provider = ret ? "uretprobe" : "uprobe";
      site.name = f.display;
      if (spec.has_offset) site.name.append("+").append(std::to_string(spec.offset));
      site.file_offset = f.file_offset + spec.offset;
      site.file_base = f.address - f.file_offset;
      site.function_entry = !ret && spec.offset == 0;
      set_function_args(site, params_.read(m.file->open_path, f.file_offset, spec.offset, ret));
      // At the entry instruction and right after the return, %rsp tells
      // which call a hit belongs to: reports pair returns by it. Inside a
      // function (+OFFSET) it tells nothing.
      if (!spec.has_offset && site.args.size() < static_cast<size_t>(format::kMaxArgs)) {
        site.args.push_back(stack_pointer_arg());
        site.frame_last = true;
      }
      add_site(std::move(site));
    }
    return Status::success();
  }

  Result<const std::vector<FunctionSymbol>*> functions_of(const SearchFile& f) {
    auto it = functions_.find(f.open_path);
    if (it == functions_.end()) {
      Result<std::vector<FunctionSymbol>> read = read_function_symbols(f.open_path);
      if (!read) return read.error();
      it = functions_.emplace(f.open_path, std::move(*read)).first;
    }
    return &it->second;
  }

  // What was searched for a spec that matched nothing (resolve_errors.h).
  Error no_match(const ProbeSpec& spec, const std::vector<SearchFile>& files) {
    NoMatch searched;
    for (const SearchFile& f : files) {
      searched.files.push_back(f.path);
      Result<const UsdtFile*> usdt = read(f);
      if (!usdt) continue;
      for (const UsdtProbe& p : (*usdt)->probes) searched.probes.insert(p.provider + ":" + p.name);
    }
    searched.skipped = skipped_;
    searched.may_load_later = spec.path.empty();
    return no_match_error(spec, searched);
  }

  static std::vector<std::string> paths_of(const std::vector<SearchFile>& files) {
    std::vector<std::string> paths;
    for (const SearchFile& f : files) paths.push_back(f.path);
    return paths;
  }

  LibraryFinder finder_;
  FunctionParamReader params_;
  std::vector<std::pair<std::string, std::string>> waiting_;
  std::vector<std::string> warnings_;
  std::set<std::string> searched_;
  std::vector<SearchFile> search_;
  std::optional<Error> scope_error_;
  std::set<std::string> skipped_;  // why searched files could not be read
  std::map<std::string, UsdtFile> cache_;
  size_t max_functions_;
  bool follow_ = false;
  pid_t mount_ns_of_ = 0;
  std::map<std::string, std::vector<FunctionSymbol>> functions_;  // by open path
  std::set<std::tuple<std::string, uint64_t, format::ProbeKind>> seen_;
  std::vector<ResolvedSite> sites_;
};

}  // namespace

Result<std::vector<ResolvedSite>> resolve_probes(const std::vector<ProbeSpec>& specs,
                                                 const SearchScope& scope, size_t max_functions,
                                                 ResolveNotes* notes) {
  Resolver resolver(scope, max_functions);
  for (const ProbeSpec& spec : specs) {
    if (Status s = resolver.resolve(spec); !s) return s.error();
  }
  if (notes != nullptr) resolver.take_notes(*notes);
  return resolver.take_sites();
}

Result<std::vector<ResolvedSite>> resolve_usdt_in_file(const std::vector<ProbeSpec>& specs,
                                                       const std::string& path,
                                                       const std::string& open_path) {
  Result<UsdtFile> usdt = read_usdt_file(open_path, path);
  if (!usdt) return usdt.error();
  std::vector<ResolvedSite> sites;
  std::set<std::pair<uint64_t, format::ProbeKind>> seen;
  for (const ProbeSpec& spec : specs) {
    if (spec.kind != ProbeKind::usdt || !spec.path.empty()) continue;
    for (ResolvedSite& site : usdt_sites(spec, *usdt, path, open_path)) {
      if (seen.emplace(site.file_offset, site.kind).second) sites.push_back(std::move(site));
    }
  }
  return sites;
}

}  // namespace usdt::record
