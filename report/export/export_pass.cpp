#include "report/export/export_pass.h"

#include <cstring>
#include <mutex>
#include <stdexcept>

namespace usdt::report {

namespace {

// The pass's consumer: the events to the exporter's reader, the process
// records to the state.
class ExportConsumer : public PassConsumer {
 public:
  ExportConsumer(ExportState& state, std::unique_ptr<ExportReader> reader)
      : state_(&state), reader_(std::move(reader)) {}
  void on_event(uint32_t site, uint32_t file, uint32_t domain, const format::Event& e, uint64_t time) {
    reader_->on_event(site, file, domain, e, time);
  }
  void on_process(uint32_t file, uint32_t, const format::ProcessEvent& p) { state_->on_process(file, p); }

 private:
  ExportState* state_;
  std::unique_ptr<ExportReader> reader_;
};

}  // namespace

EventPass::Written export_records(EventPass& pass, const std::optional<LatencyConfig>& pairing,
                                  SegmentExporter& exporter, std::FILE* out, ExportPass* whole,
                                  ProcessNames* final_names) {
  if (pairing) whole->analyzer.emplace(*pairing);
  TraceInput& input = pass.input();
  const std::vector<uint32_t>& domains = pass.domains();
  auto fresh = [&] {
    auto start = std::make_unique<ExportState>();
    start->domains = &domains;
    if (exporter.wants_symbols()) start->symbols = std::make_unique<StackSymbolizer>(input.files());
    return start;
  };
  // The segments' passes, each held from its read until its text is written.
  // (Sized once the number of segments is known, by the first of them.)
  std::vector<std::optional<ExportPass>> passes;
  std::once_flag sized;
  auto pass_slot = [&](const Segment& s) -> std::optional<ExportPass>& {
    std::call_once(sized, [&] { passes.resize(s.count); });
    return passes[s.index];
  };
  const std::string_view separator = exporter.separator();
  bool first = true;
  auto write = [&](const char* bytes, size_t n) {
    if (n == 0) return true;
    if (first) {
      // (An empty separator's data() may be null, which memcmp must not see.)
      if (!separator.empty() && n >= separator.size() &&
          std::memcmp(bytes, separator.data(), separator.size()) == 0) {
        bytes += separator.size();
        n -= separator.size();
      }
      first = false;
      whole->wrote_text = true;
    }
    return std::fwrite(bytes, 1, n, out) == n;
  };
  MemoryText hole_text;
  std::unique_ptr<ExportState> serial_state;
  const EventPass::Written written = pass.write_in_order<ExportConsumer, ExportState>(
      fresh, out,
      [&](const Segment& segment, ExportState& state, OutputBuffer& buffer) {
        if (segment.alone()) return ExportConsumer(state, exporter.reader(segment, state, *whole, buffer));
        ExportPass segment_pass;
        segment_pass.book = StartBook((uint64_t{segment.index} << 40) + 1);
        if (pairing) {
          LatencyConfig c = *pairing;
          c.later_segment = segment.later();
          segment_pass.analyzer.emplace(std::move(c));
        }
        std::optional<ExportPass>& slot = pass_slot(segment);
        slot = std::move(segment_pass);
        return ExportConsumer(state, exporter.reader(segment, state, *slot, buffer));
      },
      [&](size_t k, const MemoryText& text) {
        ExportPass& pass = *passes[k];
        bool ok = true;
        size_t pos = 0;
        size_t next = 0;  // the next hole to fill
        auto fill = [&](const ExportPass::Hole& hole, const LatencyPair* pair, ExportStart* start) {
          ok = ok && write(text.bytes.data() + pos, hole.offset - pos);
          pos = hole.offset;
          hole_text.size = 0;
          {
            OutputBuffer buffer(&hole_text);
            exporter.fill_hole(hole, pair, start, buffer, whole);
          }
          ok = ok && write(hole_text.bytes.data(), hole_text.size);
        };
        // The stack holes before hole `end` (in text order).
        auto fill_stacks_before = [&](size_t end) {
          for (; next < end; ++next) fill(pass.holes[next], nullptr, nullptr);
        };
        if (pass.analyzer) {
          std::vector<size_t> kept;  // the kept ends' holes
          for (size_t i = 0; i < pass.holes.size(); ++i) {
            if (pass.holes[i].kind == ExportPass::Hole::Kind::kept_end) kept.push_back(i);
          }
          const bool merged =
              whole->analyzer->merge(*pass.analyzer, [&](size_t i, const LatencyPair* pair) {
                if (i >= kept.size())
                  throw std::logic_error("an export kept an end it did not mark");
                fill_stacks_before(kept[i]);
                std::optional<ExportStart> start;
                if (pair != nullptr) start = whole->book.take(pair->start_tag);
                fill(pass.holes[kept[i]], pair, start ? &*start : nullptr);
                next = kept[i] + 1;
              });
          // Exports group nothing, and only --by can refuse a merge.
          if (!merged) throw std::logic_error("an export's pairing could not be merged");
        }
        fill_stacks_before(pass.holes.size());
        ok = ok && write(text.bytes.data() + pos, text.size - pos);
        exporter.end_of_pass();
        whole->book.absorb(pass.book);
        whole->pairs += pass.pairs;
        whole->events += pass.events;
        passes[k].reset();
        return ok;
      },
      &serial_state);
  if (final_names == nullptr) return written;
  if (serial_state) {
    *final_names = std::move(serial_state->names);
  } else if (std::optional<ProcessHistory> history = ProcessHistory::open(input, pass.filter())) {
    history->replay_between(0, UINT64_MAX, [&](uint32_t file, const format::ProcessEvent& p) {
      final_names->on_process(domains[file], p);
    });
  }
  return written;
}

}  // namespace usdt::report
