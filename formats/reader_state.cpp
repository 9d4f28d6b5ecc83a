#include "formats/reader_state.h"

#include <algorithm>
#include <cstdio>

#include "common/hex_text.h"
#include "formats/table_codec.h"

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

Result<uint64_t> ReaderState::read_file_start() {
  ReaderState& st = *this;
  uint64_t size = st.src->size();
  if (size == 0) {
    return Error("'" + st.path + "' is empty: not a usdt-trace file (no header at offset 0)");
  }
  std::string head;
  Status s = st.src->read(0, std::min<uint64_t>(size, kFileHeaderSize), head);
  if (!s) return s.error().context("cannot read '" + st.path + "'");
  if (head.size() < sizeof kFileMagic ||
      head.compare(0, sizeof kFileMagic, kFileMagic, sizeof kFileMagic) != 0) {
    if (head.size() < sizeof kFileMagic && std::string_view(kFileMagic, head.size()) == head) {
      return Error("'" + st.path + "' is truncated: the file ends at offset " +
                   std::to_string(size) + ", inside its header");
    }
    return Error("'" + st.path + "' is not a usdt-trace file (bad magic at offset 0)");
  }
  if (head.size() < kFileHeaderSize) {
    return Error("'" + st.path + "' is truncated: the file ends at offset " + std::to_string(size) +
                 ", inside its header");
  }
  ByteCursor in(head);
  in.skip(sizeof kFileMagic);
  uint16_t major = in.u16();
  uint16_t minor = in.u16();
  st.minor_version = minor;
  uint32_t header_size = in.u32();
  std::string version = std::to_string(major) + "." + std::to_string(minor);
  if (major > kVersionMajor) {
    return Error("'" + st.path + "' has format version " + version +
                 ", this reader understands up to " + std::to_string(kVersionMajor) +
                 ".x: upgrade usdt-report");
  }
  if (major < kVersionMajor) {
    return Error("'" + st.path + "' has format version " + version +
                 ", which this reader does not understand (it reads " +
                 std::to_string(kVersionMajor) + ".x)");
  }
  if (header_size < kFileHeaderSize || header_size > kMaxFileHeaderSize) {
    return Error("'" + st.path + "' has a bad header size " + std::to_string(header_size) +
                 " at offset 12 (expected " + std::to_string(kFileHeaderSize) + ".." +
                 std::to_string(kMaxFileHeaderSize) + ")");
  }
  if (header_size > size) {
    return Error("'" + st.path + "' is truncated: the file ends at offset " + std::to_string(size) +
                 ", inside its header");
  }
  std::string body;
  uint64_t offset = header_size;
  auto n = st.read_table_block(offset, BlockKind::metadata, "metadata", body);
  if (!n && st.budget.refusals() != 0) return Error(n.error().message() + ": " + kRaiseBudget);
  if (!n) return n.error();
  auto meta = decode_metadata(body, &st.budget);
  if (!meta) return meta.error().context("cannot read " + st.where(offset));
  st.metadata = std::move(*meta);
  offset += *n;
  n = st.read_table_block(offset, BlockKind::probe_table, "probe table", body);
  if (!n && st.budget.refusals() != 0) return Error(n.error().message() + ": " + kRaiseBudget);
  if (!n) return n.error();
  const uint64_t refusals = st.budget.refusals();
  auto table = decode_probe_table(body, &st.budget);
  if (!table && st.budget.refusals() != refusals) {
    return Error("cannot read the probe table of " + st.where(offset) + ": " +
                 table.error().message() + ": " + kRaiseBudget);
  }
  if (!table) return table.error().context("cannot read " + st.where(offset));
  st.add_sites(std::move(*table));
  offset += *n;
  return offset;
}

}  // namespace usdt::format
