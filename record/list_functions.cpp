#include "record/list_functions.h"

#include <elf.h>

#include "common/glob_match.h"
#include "common/hex_text.h"
#include "record/diagnostics.h"
#include "record/list_targets.h"
#include "record/resolve/function_listing.h"
#include "record/resolve/function_params.h"
#include "record/resolve/function_symbols.h"
#include "record/stacks/site_frame.h"

namespace usdt::record {
namespace {

const char* binding_name(const FunctionSymbol& f) {
  return f.binding == STB_LOCAL ? "local" : f.binding == STB_WEAK ? "weak" : "global";
}

// The -v lines of one function: where it is, its parameters, its call frame.
void print_function_details(const ProbeSpec& spec, const std::string& path, const FunctionSymbol& f,
                            const std::vector<StringArgs>& strings, CaptureMode capture,
                            FunctionParamReader& params,
                            SiteFrameReader& frames, std::ostream& out) {
  out << "  address " << hex(f.address) << ", size " << f.size << ", file offset "
      << hex(f.file_offset) << ", " << binding_name(f) << (f.dynamic ? " (.dynsym)" : " (.symtab)");
  if (f.raw != f.display) out << ", symbol " << f.raw;
  if (f.ifunc) out << ", IFUNC: the resolver, not the code calls run (cannot be probed)";
  out << '\n';
  if (f.ifunc) return;
  const bool ret = spec.kind == ProbeKind::uretprobe;
  FunctionParams args = params.read(path, f.file_offset, spec.offset, ret);
  std::string name = f.display;
  if (spec.has_offset) name.append("+").append(std::to_string(spec.offset));
  const uint32_t strings_mask =
      function_string_mask(strings, path, ret ? "uretprobe" : "uprobe", name, args);
  print_function_args(args, ret, f.address - f.file_offset, out, strings_mask, capture);
  // A uretprobe's hit is in the caller, after the return: no frame of its own.
  if (ret) return;
  SiteFrame frame =
      frames.at(path, f.address + spec.offset, f.file_offset + spec.offset, spec.offset == 0);
  out << "    call frame: " << describe_site_frame(frame) << '\n';
}

}  // namespace

bool list_functions(const ProbeSpec& spec, bool verbose, const std::vector<StringArgs>& strings,
                    CaptureMode capture, const LibraryFinder& finder, std::ostream& out, std::ostream& err,
                    size_t* printed) {
  if (has_wildcard(spec.path)) {
    print_error(err, Error("cannot list '" + spec.text + "': name one file, without wildcards"));
    return false;
  }
  Result<ListTarget> target = resolve_list_target(spec.path, finder);
  if (!target) {
    print_error(err, target.error());
    return false;
  }
  const std::string& path = target->path;
  auto functions = read_function_symbols(path);
  if (!functions) {
    print_error(err, functions.error());
    return false;
  }
  const char* kind = spec.kind == ProbeKind::uretprobe ? "uretprobe:" : "uprobe:";
  FunctionParamReader params;
  SiteFrameReader frames;
  for (const FunctionSymbol& f : select_functions(*functions, spec.name)) {
    ++*printed;
    out << kind << path << ':' << f.display << '\n';
    if (verbose) print_function_details(spec, path, f, strings, capture, params, frames, out);
  }
  return true;
}

}  // namespace usdt::record
