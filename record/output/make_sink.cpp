#include "record/output/make_sink.h"

#include "record/output/file_sink.h"
#include "record/output/flight_sink.h"
#include "record/output/series_sink.h"

namespace usdt::record {

Result<std::unique_ptr<TraceSink>> make_sink(const OutputPolicy& policy, const std::string& output,
                                             const format::TraceMetadata& metadata,
                                             const std::vector<format::ProbeSite>& sites,
                                             const format::WriterOptions& writer_options,
                                             std::function<void()> snapshot_hold) {
  if (policy.single_file()) {
    format::WriterOptions options = writer_options;
    options.max_bytes = policy.max_size;
    Result<format::TraceWriter> writer =
        format::TraceWriter::create(output, metadata, sites, options);
    if (!writer) return writer.error();
    return std::unique_ptr<TraceSink>(
        std::make_unique<FileSink>(std::move(*writer), output, policy.max_size));
  }
  RecordingFiles files;
  files.metadata = metadata;
  files.sites = sites;
  files.writer_options = writer_options;
  files.output = output;
  files.recording_id = new_recording_id();
  files.snapshot_hold = std::move(snapshot_hold);
  if (policy.series()) {
    Result<std::unique_ptr<SeriesSink>> sink = SeriesSink::create(files, policy);
    if (!sink) return sink.error();
    return std::unique_ptr<TraceSink>(std::move(*sink));
  }
  Result<std::unique_ptr<FlightSink>> sink = FlightSink::create(files, policy);
  if (!sink) return sink.error();
  return std::unique_ptr<TraceSink>(std::move(*sink));
}

}  // namespace usdt::record
