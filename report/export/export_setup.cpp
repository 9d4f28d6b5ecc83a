#include "report/export/export_setup.h"

#include "report/pairing/latency_setup.h"

namespace usdt::report {

std::optional<ExportSetup> prepare_export(const ReportOptions& options, TraceInput& input, bool pairs,
                                          CommandIo io, int* exit_code) {
  *exit_code = 1;
  if (options.output.empty()) {
    print_error(io.err, "export needs -o FILE");
    *exit_code = 2;
    return std::nullopt;
  }
  Result<EventPass> pass = EventPass::open(input, options.filter, {.jobs = options.jobs});
  if (!pass) {
    print_error(io.err, pass.error().message());
    return std::nullopt;
  }
  std::optional<LatencyConfig> pairing;
  if (pairs) {
    Result<LatencyConfig> config = make_latency_config(options, input.catalog());
    if (!config) {
      print_error(io.err, config.error().message());
      return std::nullopt;
    }
    pairing = std::move(*config);
  }
  Result<OutputFile> file = OutputFile::create(options.output);
  if (!file) {
    print_error(io.err, file.error().message());
    return std::nullopt;
  }
  return ExportSetup{std::move(*pass), std::move(pairing), std::move(*file)};
}

int finish_export(ExportSetup& setup, bool write_failed, const ReportOptions& options, CommandIo io) {
  if (write_failed) {
    print_error(io.err, "cannot write '" + options.output + "'");
    return 1;  // the file is closed by its owner
  }
  if (Status closed = setup.file.close(); !closed) {
    print_error(io.err, closed.error().message());
    return 1;
  }
  print_warnings(io.err, setup.pass.read_problems());
  return 0;
}

}  // namespace usdt::report
