#include "report/export/export_segments.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "report/commands.h"
#include "report/input/ordered_segments.h"
#include "report/input/process_history.h"
#include "report/symbols/stack_symbolizer.h"

namespace usdt::report {

namespace {

// Segments of about this many records, as dump's: some MB of text each.
constexpr uint64_t kSegmentRecords = uint64_t{1} << 16;

}  // namespace

std::optional<bool> export_in_segments(TraceInput& input, const EventFilter& filter,
                                       unsigned threads,
                                       const std::optional<LatencyConfig>& pairing,
                                       SegmentExporter& exporter, std::FILE* out, ExportPass* whole,
                                       ProcessNames* final_names) {
  if (threads < 2) return std::nullopt;
  const uint64_t parts = std::clamp<uint64_t>(input.indexed_records().all / kSegmentRecords,
                                              uint64_t{threads} * 4, 1 << 16);
  const std::vector<uint64_t> bounds = input.segment_bounds(static_cast<unsigned>(parts));
  if (bounds.size() < 3) return std::nullopt;
  const std::optional<ProcessHistory> history = ProcessHistory::open(input, filter);
  if (!history) return std::nullopt;
  const std::vector<uint32_t> domains = file_domains(input);
  if (pairing) whole->analyzer.emplace(*pairing);
  // What a segment's read starts from: the names and mappings as of its
  // start, carried by each thread from its last segment.
  struct SegmentStart {
    const std::vector<uint32_t>& domains;
    ProcessNames names;
    std::unique_ptr<StackSymbolizer> symbols;
    void on_process(uint32_t file, const format::ProcessEvent& p) {
      names.on_process(domains[file], p);
      if (symbols) symbols->on_process(file, p);
    }
  };
  CarriedStates<SegmentStart> carried(*history, [&] {
    auto start = std::make_unique<SegmentStart>(SegmentStart{domains, {}, nullptr});
    if (exporter.wants_symbols()) start->symbols = std::make_unique<StackSymbolizer>(input.files());
    return start;
  });

  // The segments' passes, each held from its read until its text is written.
  std::vector<std::optional<ExportPass>> passes(bounds.size() - 1);
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
  bool written = emit_segments_in_order(
      input, bounds, threads, 2 * size_t{threads},
      [&](size_t k, TraceInput& segment, MemoryText& text) {
        ExportPass pass;
        pass.book = StartBook((uint64_t{k} << 40) + 1);
        if (pairing) {
          LatencyConfig c = *pairing;
          c.later_segment = k > 0;
          pass.analyzer.emplace(std::move(c));
        }
        SegmentStart& start = carried.take(bounds[k]);
        {
          OutputBuffer buffer(&text);
          exporter.read(segment, start.names, start.symbols.get(), pass, buffer);
        }
        carried.finished(bounds[k + 1]);
        passes[k] = std::move(pass);
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
      });
  if (final_names != nullptr) {
    history->replay_between(0, UINT64_MAX, [&](uint32_t file, const format::ProcessEvent& p) {
      final_names->on_process(domains[file], p);
    });
  }
  return written;
}

}  // namespace usdt::report
