#include "report/export/export_command.h"

namespace usdt::report {

int run_export(const ReportOptions& options, TraceInput& input, CommandIo io) {
  if (options.format.starts_with("clickhouse-")) return run_clickhouse_export(options, input, io);
  if (options.format != "chrome") {
    print_error(io.err,
                "export writes --format chrome, clickhouse-events or clickhouse-pairs (got '" +
                    options.format + "')");
    return 2;
  }
  return run_chrome_export(options, input, io);
}

}  // namespace usdt::report
