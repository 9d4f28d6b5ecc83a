// usdt-record's messages on stderr, in one form: "usdt-record: error: ..."
// (the error's own text may end in one "hint: ..." line), "usdt-record:
// warning: ..." when the recording goes on, "usdt-record: note: ..." for
// what the user may want to know.
#pragma once

#include <ostream>

#include "common/result.h"

namespace usdt::record {

void print_error(std::ostream& err, const Error& error);

// err, after the prefix of a warning or a note: the caller streams the
// message and its newline.
std::ostream& warning(std::ostream& err);
std::ostream& note(std::ostream& err);

}  // namespace usdt::record
