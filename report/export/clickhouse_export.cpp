#include "report/export/clickhouse_export.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

#include "report/export/export_command.h"
#include "report/output/arg_format.h"
#include "report/export/clickhouse_text.h"
#include "report/input/event_copy.h"
#include "report/export/export_pass.h"
#include "report/export/export_setup.h"
#include "report/pairing/latency_analyzer.h"
#include "report/pairing/latency_setup.h"
#include "report/output/output_buffer.h"
#include "report/output/output_file.h"
#include "report/input/process_names.h"
#include "report/input/segments.h"

namespace usdt::report {

std::string clickhouse_schema() {
  // Types and syntax that ClickHouse 18.16 (Debian 12) and current releases
  // both accept: no DateTime64 or Map in 18.16, and current releases refuse
  // the old MergeTree(date, key, granularity) form by default.
  return R"(-- usdt-report export --format clickhouse-events: one row per event.
CREATE TABLE IF NOT EXISTS usdt_events
(
    host String,
    time_ns UInt64,
    pid UInt32,
    tid UInt32,
    cpu UInt32,
    comm Nullable(String),
    probe String,
    arg_names Array(String),
    arg_values Array(Nullable(String)),
    arg_truncated Array(UInt8),
    time DateTime MATERIALIZED toDateTime(intDiv(time_ns, 1000000000))
)
ENGINE = MergeTree()
PARTITION BY toYYYYMMDD(time)
ORDER BY (host, probe, time_ns);

-- usdt-report export --format clickhouse-pairs --start P --end P [--key K]:
-- one row per start/end pair.
CREATE TABLE IF NOT EXISTS usdt_pairs
(
    host String,
    start_time_ns UInt64,
    duration_ns UInt64,
    pid UInt32,
    tid UInt32,
    comm Nullable(String),
    start_probe String,
    end_probe String,
    key_name String,
    key String,
    arg_names Array(String),
    arg_values Array(Nullable(String)),
    arg_truncated Array(UInt8),
    start_time DateTime MATERIALIZED toDateTime(intDiv(start_time_ns, 1000000000))
)
ENGINE = MergeTree()
PARTITION BY toYYYYMMDD(start_time)
ORDER BY (host, start_probe, start_time_ns);
)";
}

std::string clickhouse_arg_name(const SiteInfo* site, int index) {
  if (site == nullptr) return "arg" + std::to_string(index);
  return site->arg_label(static_cast<size_t>(index));
}

namespace {

void append_u64(std::string& out, uint64_t v) {
  char buf[24];
  out.append(buf, static_cast<size_t>(put_u64(buf, v) - buf));
}

// The wall clock (ns since the epoch) of a timeline time of a file: its own
// anchor, not the first file's.
uint64_t wall_clock_ns(const TraceFileInfo& file, uint64_t timeline_time) {
  uint64_t monotonic = timeline_time - static_cast<uint64_t>(file.shift_ns);
  return file.metadata.start_realtime_ns + (monotonic - file.metadata.start_monotonic_ns);
}

// The thread's name as the trace's process records tell it so far, else NULL.
void append_comm(std::string& row, const ProcessNames& names, uint32_t domain,
                 const format::Event& e) {
  uint32_t n = names.thread_name(domain, e.pid, e.tid);
  if (n == ProcessNames::kNoName) {
    append_tsv_null(row);
  } else {
    append_tsv_string(row, names.name(n));
  }
}

// arg_names, arg_values, arg_truncated of an event: three TSV fields.
void append_args(std::string& row, const SiteInfo* site, const format::Event& e) {
  const int count = std::min<int>(e.arg_count, format::kMaxArgs);
  row += '[';
  for (int i = 0; i < count; ++i) {
    if (i > 0) row += ',';
    append_quoted_string(row, clickhouse_arg_name(site, i));
  }
  row += "]\t[";
  for (int i = 0; i < count; ++i) {
    if (i > 0) row += ',';
    if (!e.has_arg(i)) {
      row += "NULL";  // never a made-up 0
    } else if (e.is_string(i)) {
      append_quoted_string(row, e.string_arg(i).bytes);
    } else {
      append_quoted_string(row, arg_text(e.args[i], arg_type_at(site, i), false));
    }
  }
  row += "]\t[";
  for (int i = 0; i < count; ++i) {
    if (i > 0) row += ',';
    row += e.is_string(i) && e.has_arg(i) && e.string_arg(i).truncated ? '1' : '0';
  }
  row += ']';
}

// The text of a pair's key: the number, or the string argument's bytes.
std::string key_text(const LatencyPair& p, const KeySpec& key) {
  if (p.key_type == ArgType::string) return p.key_text;
  if (key.kind == KeySpec::Kind::arg) return arg_text(p.key, p.key_type, false);
  return std::to_string(p.key);
}

// The comm field of a start kept in a StartBook.
void append_comm_field(std::string& row, const std::optional<std::string>& comm) {
  if (comm) {
    append_tsv_string(row, *comm);
  } else {
    append_tsv_null(row);
  }
}

class ClickHouseReader;

// Rows of events, or of start/end pairs (when the pass has an analyzer).
class ClickHouseExporter final : public SegmentExporter {
 public:
  ClickHouseExporter(const TraceInput& input, const KeySpec& key)
      : catalog_(input.catalog()), files_(input.files()), key_(key) {}

  // Each reader and fill_hole has its own row: segments read on several threads.
  std::unique_ptr<ExportReader> reader(const Segment&, ExportState& state, ExportPass& pass,
                                       OutputBuffer& out) override;

  void fill_hole(const ExportPass::Hole&, const LatencyPair* pair, ExportStart* start,
                 OutputBuffer& out, ExportPass* counts) override {
    if (pair == nullptr || start == nullptr) return;  // an end alone has no row
    std::string row;
    write_pair_row(*pair, *start, row, out);
    ++counts->pairs;
  }

 private:
  friend class ClickHouseReader;

  void write_pair_row(const LatencyPair& p, ExportStart& start, std::string& row,
                      OutputBuffer& out) {
    const format::Event& s = start.copy.event();
    row.clear();
    append_tsv_string(row, files_[start.file].metadata.hostname);
    row += '\t';
    append_u64(row, wall_clock_ns(files_[start.file], p.start_time));
    row += '\t';
    append_u64(row, p.duration);
    row += '\t';
    append_u64(row, s.pid);
    row += '\t';
    append_u64(row, s.tid);
    row += '\t';
    append_comm_field(row, start.comm);
    row += '\t';
    append_tsv_string(row, catalog_.probe_of_site(p.start_site).full_name);
    row += '\t';
    append_tsv_string(row, catalog_.probe_of_site(p.end_site).full_name);
    row += '\t';
    append_tsv_string(row, key_.text());
    row += '\t';
    append_tsv_string(row, key_text(p, key_));
    row += '\t';
    append_args(row, &catalog_.site(p.start_site), s);
    row += '\n';
    out.append(row);
    out.maybe_flush();
  }

  const ProbeCatalog& catalog_;
  const std::vector<TraceFileInfo>& files_;
  const KeySpec& key_;
};

// One segment's rows, or the whole input's.
class ClickHouseReader final : public ExportReader {
 public:
  ClickHouseReader(ClickHouseExporter& exporter, const ProcessNames& names, ExportPass& pass, OutputBuffer& out)
      : x_(exporter), names_(names), pass_(pass), out_(out) {}

  void on_event(uint32_t site, uint32_t file, uint32_t domain, const format::Event& e, uint64_t time) override {
    if (!pass_.analyzer) {
      write_event_row(site, file, domain, e, time);
      return;
    }
    LatencyPair p;
    const uint64_t number = pass_.book.next_number();
    switch (pass_.analyzer->on_event(site, domain, e, time, &p, number)) {
      case LatencyAnalyzer::Outcome::started: {
        // The start's row fields are its own: its thread's name now.
        const uint32_t n = names_.thread_name(domain, e.pid, e.tid);
        std::optional<std::string> comm;
        if (n != ProcessNames::kNoName) comm = names_.name(n);
        pass_.book.add(ExportStart{file, domain, site, time, std::move(comm), nullptr, 0, EventCopy(e)});
        break;
      }
      case LatencyAnalyzer::Outcome::paired:
        if (std::optional<ExportStart> start = pass_.book.take(p.start_tag)) {
          x_.write_pair_row(p, *start, row_, out_);
          ++pass_.pairs;
        }
        break;
      case LatencyAnalyzer::Outcome::kept_end:  // its start may be in an earlier segment
        pass_.holes.emplace_back();             // an end alone has no row: only its place
        pass_.holes.back().offset = out_.size();
        break;
      default:
        break;
    }
  }

 private:
  void write_event_row(uint32_t site, uint32_t file, uint32_t domain, const format::Event& e, uint64_t time) {
    const TraceFileInfo& f = x_.files_[file];
    row_.clear();
    append_tsv_string(row_, f.metadata.hostname);
    row_ += '\t';
    append_u64(row_, wall_clock_ns(f, time));
    row_ += '\t';
    append_u64(row_, e.pid);
    row_ += '\t';
    append_u64(row_, e.tid);
    row_ += '\t';
    append_u64(row_, e.cpu);
    row_ += '\t';
    append_comm(row_, names_, domain, e);
    row_ += '\t';
    append_tsv_string(row_, x_.catalog_.probe_of_site(site).full_name);
    row_ += '\t';
    append_args(row_, &x_.catalog_.site(site), e);
    row_ += '\n';
    out_.append(row_);
    out_.maybe_flush();
    ++pass_.events;
  }

  ClickHouseExporter& x_;
  const ProcessNames& names_;
  ExportPass& pass_;
  OutputBuffer& out_;
  std::string row_;
};

std::unique_ptr<ExportReader> ClickHouseExporter::reader(const Segment&, ExportState& state, ExportPass& pass,
                                                         OutputBuffer& out) {
  return std::make_unique<ClickHouseReader>(*this, state.names, pass, out);
}

}  // namespace

int run_clickhouse_export(const ReportOptions& options, TraceInput& input, CommandIo io) {
  const bool pairs = options.format == "clickhouse-pairs";
  if (!pairs && options.format != "clickhouse-events") {
    print_error(io.err, "unknown ClickHouse format '" + options.format +
                            "' (clickhouse-events, clickhouse-pairs)");
    return 2;
  }
  if (pairs && (options.start.empty() || options.end.empty())) {
    print_error(io.err, "export --format clickhouse-pairs needs --start PROBE and --end PROBE");
    return 2;
  }
  if (!pairs && (!options.start.empty() || !options.end.empty())) {
    print_error(io.err,
                "export --format clickhouse-events writes every event: --start/--end are for "
                "clickhouse-pairs");
    return 2;
  }
  int exit_code = 0;
  std::optional<ExportSetup> setup = prepare_export(options, input, pairs, io, &exit_code);
  if (!setup) return exit_code;
  ClickHouseExporter exporter(input, options.key);
  ExportPass whole;
  const EventPass::Written written =
      export_records(setup->pass, setup->pairing, exporter, setup->file.get(), &whole, nullptr);
  const bool failed = !written.ok;
  if (int code = finish_export(*setup, failed, options, io); code != 0) return code;
  if (whole.analyzer) {
    std::fprintf(
        io.err, "usdt-report: wrote '%s': %llu pairs, %llu unmatched starts, %llu unmatched ends\n",
        options.output.c_str(), static_cast<unsigned long long>(whole.pairs),
        static_cast<unsigned long long>(whole.analyzer->unmatched_starts()),
        static_cast<unsigned long long>(whole.analyzer->unmatched_ends()));
  } else {
    std::fprintf(io.err, "usdt-report: wrote '%s': %llu events\n", options.output.c_str(),
                 static_cast<unsigned long long>(whole.events));
  }
  return 0;
}

}  // namespace usdt::report
