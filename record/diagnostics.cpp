#include "record/diagnostics.h"

namespace usdt::record {

void print_error(std::ostream& err, const Error& error) {
  err << "usdt-record: error: " << error.message() << '\n';
}

std::ostream& warning(std::ostream& err) { return err << "usdt-record: warning: "; }

std::ostream& note(std::ostream& err) { return err << "usdt-record: note: "; }

}  // namespace usdt::record
