#include "record/function_listing.h"

#include "common/hex_text.h"
#include "record/site_sampling.h"

namespace usdt::record {

void print_function_site(const ResolvedSite& site, bool verbose, std::ostream& out) {
  const bool ret = site.kind == format::ProbeKind::uretprobe;
  out << (ret ? "uretprobe:" : "uprobe:") << site.path << ':' << site.name << '\n';
  if (!verbose) return;
  out << "  file offset " << hex(site.file_offset) << '\n';
  if (!site.args_fallback.empty()) {
    out << "  no " << (ret ? "return type" : "parameters") << " from DWARF: "
        << site.args_fallback << "; the ABI registers are recorded\n";
  }
  if (site.args.empty()) out << (ret ? "    returns nothing (void)\n" : "    no parameters\n");
  SamplingChoices choices;
  choices.file_base = site.file_base;
  SiteSampling plan = plan_site_sampling(site.args, site.arch, choices);
  for (size_t i = 0; i < site.args.size(); ++i) {
    const ArgSpec& a = site.args[i];
    out << "    arg" << i;
    if (i < site.arg_names.size()) out << ' ' << site.arg_names[i];
    if (i < site.arg_types.size()) out << " (" << site.arg_types[i] << ')';
    if (a.location != ArgLocation::undecodable) out << ": " << a.text << "  " << describe(a, site.arch);
    out << "  [" << describe_source(plan, i) << "]\n";
  }
}

}  // namespace usdt::record
