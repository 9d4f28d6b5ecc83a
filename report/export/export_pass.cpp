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
  void on_event(uint32_t site, uint32_t file, uint32_t domain, const format::Event& e,
                uint64_t time) {
    reader_->on_event(site, file, domain, e, time);
  }
  void on_process(uint32_t file, uint32_t, const format::ProcessEvent& p) {
    state_->on_process(file, p);
  }

 private:
  ExportState* state_;
  std::unique_ptr<ExportReader> reader_;
};

// Writes the segments' texts to out in order, each with its holes filled:
// the first separator dropped, kept ends paired against the whole pass's
// open starts (or left instants), stack ids numbered.
class InOrderText {
 public:
  InOrderText(SegmentExporter& exporter, std::FILE* out, ExportPass* whole)
      : exporter_(exporter), out_(out), whole_(whole), separator_(exporter.separator()) {}

  bool write(const char* bytes, size_t n) {
    if (n == 0) return true;
    if (first_) {
      // (An empty separator's data() may be null, which memcmp must not see.)
      if (!separator_.empty() && n >= separator_.size() &&
          std::memcmp(bytes, separator_.data(), separator_.size()) == 0) {
        bytes += separator_.size();
        n -= separator_.size();
      }
      first_ = false;
      whole_->wrote_text = true;
    }
    return std::fwrite(bytes, 1, n, out_) == n;
  }

  // Segment pass's text, its holes filled; then its counts join the whole's.
  bool emit(ExportPass& pass, const MemoryText& text) {
    ok_ = true;
    pos_ = 0;
    next_ = 0;
    if (pass.analyzer) merge_pairing(pass, text);
    fill_stacks_before(pass, text, pass.holes.size());
    ok_ = ok_ && write(text.bytes.data() + pos_, text.size - pos_);
    exporter_.end_of_pass();
    whole_->book.absorb(pass.book);
    whole_->pairs += pass.pairs;
    whole_->events += pass.events;
    return ok_;
  }

 private:
  void fill(const MemoryText& text, const ExportPass::Hole& hole, const LatencyPair* pair,
            ExportStart* start) {
    ok_ = ok_ && write(text.bytes.data() + pos_, hole.offset - pos_);
    pos_ = hole.offset;
    hole_text_.size = 0;
    {
      OutputBuffer buffer(&hole_text_);
      exporter_.fill_hole(hole, pair, start, buffer, whole_);
    }
    ok_ = ok_ && write(hole_text_.bytes.data(), hole_text_.size);
  }

  // The stack holes before hole `end` (in text order).
  void fill_stacks_before(ExportPass& pass, const MemoryText& text, size_t end) {
    for (; next_ < end; ++next_) fill(text, pass.holes[next_], nullptr, nullptr);
  }

  // The segment's kept ends close the whole's open starts (or stay instants).
  void merge_pairing(ExportPass& pass, const MemoryText& text) {
    std::vector<size_t> kept;  // the kept ends' holes
    for (size_t i = 0; i < pass.holes.size(); ++i) {
      if (pass.holes[i].kind == ExportPass::Hole::Kind::kept_end) kept.push_back(i);
    }
    const bool merged =
        whole_->analyzer->merge(*pass.analyzer, [&](size_t i, const LatencyPair* pair) {
          if (i >= kept.size()) throw std::logic_error("an export kept an end it did not mark");
          fill_stacks_before(pass, text, kept[i]);
          std::optional<ExportStart> start;
          if (pair != nullptr) start = whole_->book.take(pair->start_tag);
          fill(text, pass.holes[kept[i]], pair, start ? &*start : nullptr);
          next_ = kept[i] + 1;
        });
    // Exports group nothing, and only --by can refuse a merge.
    if (!merged) throw std::logic_error("an export's pairing could not be merged");
  }

  SegmentExporter& exporter_;
  std::FILE* out_;
  ExportPass* whole_;
  std::string_view separator_;
  bool first_ = true;
  bool ok_ = true;
  size_t pos_ = 0;   // in the segment's text: written up to here
  size_t next_ = 0;  // the next hole to fill
  MemoryText hole_text_;
};

// The process names at the end of the input: the serial read's, or replayed.
void final_process_names(EventPass& pass, std::unique_ptr<ExportState>& serial_state,
                         ProcessNames* names) {
  if (serial_state) {
    *names = std::move(serial_state->names);
  } else if (std::optional<ProcessHistory> history =
                 ProcessHistory::open(pass.input(), pass.filter())) {
    history->replay_between(0, UINT64_MAX, [&](uint32_t file, const format::ProcessEvent& p) {
      names->on_process(pass.domains()[file], p);
    });
  }
}

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
  InOrderText text_out(exporter, out, whole);
  std::unique_ptr<ExportState> serial_state;
  const EventPass::Written written = pass.write_in_order<ExportConsumer, ExportState>(
      fresh, out,
      [&](const Segment& segment, ExportState& state, OutputBuffer& buffer) {
        if (segment.alone())
          return ExportConsumer(state, exporter.reader(segment, state, *whole, buffer));
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
        const bool ok = text_out.emit(*passes[k], text);
        passes[k].reset();
        return ok;
      },
      &serial_state);
  if (final_names != nullptr) final_process_names(pass, serial_state, final_names);
  return written;
}

}  // namespace usdt::report
