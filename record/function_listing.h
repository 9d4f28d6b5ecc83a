// `usdt-record -l -v uprobe:PATH:SYMBOL`: under each listed function, each
// argument a recording would record: name, C type, where it is at the hit
// and how the recorder reads it (or why it cannot); or, without usable
// DWARF, why the ABI registers stand in.
#pragma once

#include <cstdint>
#include <ostream>

#include "record/function_params.h"

namespace usdt::record {

// Prints the arguments of a function probe, indented; file_base is the
// function's address minus its file offset (for kernel-read symbols).
void print_function_args(const FunctionParams& params, bool ret, uint64_t file_base,
                         std::ostream& out);

}  // namespace usdt::record
