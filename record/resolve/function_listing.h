// `usdt-record -l -v uprobe:PATH:SYMBOL`: under each listed function, each
// argument a recording would record: name, C type, where it is at the hit
// and how the recorder reads it (or why it cannot); or, without usable
// DWARF, why the ABI registers stand in.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "record/resolve/function_params.h"
#include "record/record_options.h"

namespace usdt::record {

// Prints the arguments of a function probe, indented; file_base is the
// function's address minus its file offset (for kernel-read symbols);
// string_mask: the arguments --string takes as strings (bit N: argument N).
void print_function_args(const FunctionParams& params, bool ret, uint64_t file_base,
                         std::ostream& out, uint32_t string_mask = 0,
                         CaptureMode capture = CaptureMode::sample);

// The arguments of a function probe that --string patterns take as strings:
// by number (argN) and by parameter name.
uint32_t function_string_mask(const std::vector<StringArgs>& strings, const std::string& path,
                              const std::string& provider, const std::string& name,
                              const FunctionParams& params);

}  // namespace usdt::record
