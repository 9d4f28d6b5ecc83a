#include "record/function_listing.h"

#include "record/site_sampling.h"

namespace usdt::record {

void print_function_args(const FunctionParams& params, bool ret, uint64_t file_base,
                         std::ostream& out) {
  if (!params.fallback.empty()) {
    out << "  no " << (ret ? "return type" : "parameters") << " from DWARF: " << params.fallback
        << "; the ABI registers are recorded\n";
  }
  if (params.args.empty()) out << (ret ? "    returns nothing (void)\n" : "    no parameters\n");
  SamplingChoices choices;
  choices.file_base = file_base;
  const Arch arch = Arch::x86_64;
  SiteSampling plan = plan_site_sampling(params.args, arch, choices);
  for (size_t i = 0; i < params.args.size(); ++i) {
    const ArgSpec& a = params.args[i];
    out << "    arg" << i;
    if (i < params.names.size()) out << ' ' << params.names[i];
    if (i < params.types.size()) out << " (" << params.types[i] << ')';
    if (a.location != ArgLocation::undecodable) out << ": " << a.text << "  " << describe(a, arch);
    out << "  [" << describe_source(plan, i) << "]\n";
  }
}

}  // namespace usdt::record
