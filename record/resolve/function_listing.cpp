#include "record/resolve/function_listing.h"

#include "common/probe_spec.h"
#include "record/plan/bpf_arg_plan.h"
#include "record/plan/site_sampling.h"

namespace usdt::record {

uint32_t function_string_mask(const std::vector<StringArgs>& strings, const std::string& path,
                              const std::string& provider, const std::string& name,
                              const FunctionParams& params) {
  uint32_t mask = 0;
  for (const StringArgs& s : strings) {
    if (!s.probe.matches(path, provider, name)) continue;
    mask |= s.arg_mask;
    for (const std::string& wanted : s.arg_names) {
      for (size_t i = 0; i < params.names.size() && i < 32; ++i) {
        if (params.names[i] == wanted) mask |= 1u << i;
      }
    }
  }
  if (params.args.size() < 32) mask &= (1u << params.args.size()) - 1;
  return mask;
}

void print_function_args(const FunctionParams& params, bool ret, uint64_t file_base,
                         std::ostream& out, uint32_t string_mask, CaptureMode capture) {
  if (!params.fallback.empty()) {
    out << "  no " << (ret ? "return type" : "parameters") << " from DWARF: " << params.fallback
        << "; the ABI registers are recorded\n";
  }
  if (params.args.empty()) out << (ret ? "    returns nothing (void)\n" : "    no parameters\n");
  SamplingChoices choices;
  choices.file_base = file_base;
  choices.string_mask = string_mask;
  const Arch arch = Arch::x86_64;
  SiteSampling plan = plan_site_sampling(params.args, arch, choices);
  BpfSitePlan bpf = plan_bpf_site(params.args, arch, choices, 0, ret);
  for (size_t i = 0; i < params.args.size(); ++i) {
    const ArgSpec& a = params.args[i];
    out << "    arg" << i;
    if (i < params.names.size()) out << ' ' << params.names[i];
    if (i < params.types.size()) out << " (" << params.types[i] << ')';
    if (a.location != ArgLocation::undecodable) out << ": " << a.text << "  " << describe(a, arch);
    ArgListing how = list_arg_paths(plan, bpf, i, capture);
    out << "  [" << how.bracket << "]\n";
    if (!how.bpf_line.empty()) out << "      " << how.bpf_line << '\n';
  }
}

}  // namespace usdt::record
