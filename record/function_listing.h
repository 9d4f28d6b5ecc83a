// `usdt-record -l [-v] uprobe:PATH:SYMBOL`: a function probe as a recording
// would attach it, and under -v each argument it would record: name, C type,
// where it is at the hit and how the recorder reads it (or why it cannot);
// or, without usable DWARF, why the ABI registers stand in.
#pragma once

#include <ostream>

#include "record/probe_resolver.h"

namespace usdt::record {

// Prints "uprobe:PATH:SYMBOL" (or uretprobe:) and, when verbose, the
// arguments indented under it.
void print_function_site(const ResolvedSite& site, bool verbose, std::ostream& out);

}  // namespace usdt::record
