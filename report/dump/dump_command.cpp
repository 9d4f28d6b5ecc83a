#include "report/dump/dump_command.h"

#include <optional>
#include <string>

#include "report/output/output_buffer.h"

namespace usdt::report {

namespace {

std::optional<DumpFormat> dump_format(const std::string& name) {
  if (name == "text") return DumpFormat::text;
  if (name == "jsonl") return DumpFormat::jsonl;
  if (name == "csv") return DumpFormat::csv;
  return std::nullopt;
}

}  // namespace

int run_dump(const ReportOptions& options, TraceInput& input, CommandIo io) {
  const std::optional<DumpFormat> format = dump_format(options.format);
  if (!format) {
    print_error(io.err, "dump cannot write format '" + options.format + "' (text, jsonl or csv)");
    return 2;
  }
  Result<EventPass> pass = EventPass::open(input, options.filter, {.jobs = options.jobs});
  if (!pass) return command_failed(io, pass.error());
  const DumpSetup setup = make_dump_setup(*format, input, pass->filter(), pass->domains());
  bool header_written = true;
  if (*format == DumpFormat::csv) {
    OutputBuffer out(io.out);
    out.append(csv_header(setup));
    out.flush();  // before the segments write
    header_written = !out.failed();
  }
  const EventPass::Written written =
      *format == DumpFormat::text ? write_text_dump(*pass, setup, io.out) : write_row_dump(*pass, setup, io.out);
  print_warnings(io.err, pass->read_problems());
  if (!header_written || !written.ok) {
    print_error(io.err, "cannot write the output (disk full or closed pipe?)");
    return 1;
  }
  return 0;
}

}  // namespace usdt::report
