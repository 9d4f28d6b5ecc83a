#include "formats/reader_state.h"

#include <algorithm>
#include <cstdio>

#include "common/hex_text.h"

namespace usdt::format {

std::string ReaderState::where(uint64_t offset) const {
  return "'" + path + "' at offset " + std::to_string(offset) + " (" + hex(offset) + ")";
}

void ReaderState::add_sites(std::vector<ProbeSite> added) {
  for (ProbeSite& site : added) {
    // 1.2: the stack pointer of function probes travels as a last argument
    // flagged is_frame; it is not the probe's, so it leaves the arguments.
    // (The flag anywhere else means nothing.) The argument count stays the
    // chunk's, frame included.
    site_arg_counts.push_back(static_cast<uint8_t>(site.args.size()));
    site.has_frame = !site.args.empty() && site.args.back().is_frame;
    if (site.has_frame) site.args.pop_back();
    for (ArgDescriptor& a : site.args) a.is_frame = false;
    site_frames.push_back(site.has_frame ? 1 : 0);
    uint16_t strings = 0;
    for (size_t i = 0; i < site.args.size(); ++i) {
      if (site.args[i].is_string) strings = static_cast<uint16_t>(strings | (1u << i));
    }
    site_string_masks.push_back(strings);
    sites.push_back(std::move(site));
  }
}

void ReaderState::problem(uint64_t offset, std::string message) {
  diag.problems.push_back(ReadProblem{offset, std::move(message), false});
}

void ReaderState::budget_problem(uint64_t offset, std::string message) {
  diag.problems.push_back(ReadProblem{offset, std::move(message), true});
}

void ReaderState::start_budget(uint64_t limit, uint64_t tables) {
  budget = ReadBudget(limit);
  tables_held = tables != 0 ? tables : loader_buffers(limit);
  (void)budget.take(tables_held);
}

void ReaderState::note_memory() {
  diag.memory_budget = budget.limit();
  diag.memory_peak = std::max(diag.memory_peak, budget.peak() + ahead_peak);
  diag.tables_decompressed = budget.table_bytes();
}

void ReaderState::release_table_body() {
  budget.give_back(body_held);
  body_held = 0;
}

Result<uint64_t> ReaderState::read_table_block(uint64_t offset, BlockKind kind, const char* what,
                                               std::string& body_out) {
  uint64_t size = src->size();
  if (size - offset < kBlockHeaderSize) {
    return Error("'" + path + "' is truncated: the file ends at offset " + std::to_string(size) +
                 ", inside the " + what + " block");
  }
  Status s = src->read(offset, kBlockHeaderSize, block_buf);
  if (!s) return s.error().context("cannot read '" + path + "'");
  ByteCursor in(block_buf);
  BlockHeader h = decode_block_header(in);
  if (std::string bad = check_block_header(h); !bad.empty()) {
    return Error("cannot read the " + std::string(what) + " block of " + where(offset) + ": " +
                 bad);
  }
  if (h.kind != static_cast<uint16_t>(kind)) {
    return Error("cannot read " + where(offset) + ": expected the " + what +
                 " block, found a block of kind " + std::to_string(h.kind));
  }
  if (h.total_size() > size - offset) {
    return Error("'" + path + "' is truncated: the file ends at offset " + std::to_string(size) +
                 ", inside the " + what + " block at offset " + std::to_string(offset));
  }
  s = src->read(offset + kBlockHeaderSize + h.header_size, h.body_size, block_buf);
  release_table_body();
  // A content over the limit (or none) fails the decompression: damage.
  if (const uint64_t content = zstd_content_size(block_buf); s && content <= kMaxTablePayload) {
    if (!budget.take(content)) {
      return Error("the " + std::string(what) + " block of " + where(offset) + " " +
                   over_budget_text(content, &budget));
    }
    if (!budget.take_table_bytes(content)) {
      budget.give_back(content);
      return Error("the " + std::string(what) + " block of " + where(offset) +
                   " is not read: the reader has decompressed " +
                   byte_size_text(budget.table_bytes()) + " of tables, what its memory budget of " +
                   byte_size_text(budget.limit()) + " allows");
    }
    body_held = content;
  }
  if (s) s = zstd.decompress(block_buf, kMaxTablePayload, body_out);
  if (!s) {
    return s.error().context("the " + std::string(what) + " block of " + where(offset) +
                             " is damaged");
  }
  return h.total_size();
}

}  // namespace usdt::format
