// The values of arguments from what a sample carries: sampled registers,
// the stack copy, and the raw data of a kernel read (sample_decoder.h).
#include "record/kernel/sample_decoder.h"

#include <algorithm>
#include <cstring>

#include "formats/byte_cursor.h"
#include "record/kernel/sample_trailer.h"

namespace usdt::record {
uint64_t extend_arg(uint64_t raw, unsigned size, bool sign) {
  if (size >= 8) return raw;
  unsigned bits = size * 8;
  uint64_t mask = (uint64_t{1} << bits) - 1;
  raw &= mask;
  if (sign && (raw >> (bits - 1)) != 0) raw |= ~mask;
  return raw;
}

void SampledRegs::set_layout(uint64_t mask) {
  slot_.fill(-1);
  mask_ = mask;
  int8_t n = 0;
  for (int reg = 0; reg < 64; ++reg) {
    if (mask & (uint64_t{1} << reg)) slot_[reg] = n++;
  }
}

std::optional<uint64_t> decode_arg(const ArgSpec& spec, ArgSource source, const SampledRegs& regs,
                                   const StackDump& stack, int16_t sp_reg) {
  // Floats keep their IEEE bits: never sign-extended.
  const bool sign = spec.is_signed && !spec.is_float;
  switch (source) {
    case ArgSource::constant:
      return extend_arg(static_cast<uint64_t>(spec.constant), spec.size, sign);
    case ArgSource::sampled_register: {
      std::optional<uint64_t> v = regs.get(spec.reg);
      if (!v) return std::nullopt;
      return extend_arg(*v >> spec.reg_shift, spec.size, sign);
    }
    case ArgSource::sampled_stack: {
      std::optional<uint64_t> base = regs.get(spec.reg);
      std::optional<uint64_t> sp = regs.get(sp_reg);
      if (!base || !sp || stack.data == nullptr) return std::nullopt;
      uint64_t address = *base + static_cast<uint64_t>(spec.displacement);
      if (spec.index_reg != kNoReg) {
        std::optional<uint64_t> index = regs.get(spec.index_reg);
        if (!index) return std::nullopt;
        address += *index * spec.scale;
      }
      // [address, address + size) must lie within [sp, sp + dump size);
      // written to avoid overflow on hostile values.
      if (address < *sp) return std::nullopt;
      uint64_t offset = address - *sp;
      if (spec.size > 8 || offset > stack.size || stack.size - offset < spec.size)
        return std::nullopt;
      uint64_t raw = 0;
      std::memcpy(&raw, stack.data + offset, spec.size);  // little-endian host
      return extend_arg(raw, spec.size, sign);
    }
    case ArgSource::not_in_sample:
    case ArgSource::kernel_read:  // decode_raw_arg()
      break;
  }
  return std::nullopt;
}

std::optional<uint64_t> decode_raw_arg(const ArgSpec& spec, const RawArg& raw,
                                       const uint8_t* data, size_t size, uint32_t string_bytes,
                                       format::StringArg* string, std::string* hex_text) {
  // A __data_loc: u32 offset | length << 16, the offset from the raw data
  // (a __rel_loc's from the end of the u32).
  auto data_loc = [&](int32_t at, uint32_t& offset, uint32_t& length) {
    if (at < 0 || static_cast<size_t>(at) + 4 > size) return false;
    uint32_t loc;
    std::memcpy(&loc, data + at, 4);
    offset = loc & 0xffff;
    length = loc >> 16;
    if (raw.rel_loc) offset += static_cast<uint32_t>(at) + 4;
    return offset <= size && length <= size - offset;
  };
  if (raw.is_string_arg()) {
    if (string == nullptr) return std::nullopt;
    uint32_t offset, length;
    if (raw.fixed != 0) {
      if (raw.value < 0 || static_cast<size_t>(raw.value) > size ||
          size - static_cast<size_t>(raw.value) < raw.fixed) {
        return std::nullopt;
      }
      offset = static_cast<uint32_t>(raw.value);
      length = raw.fixed;
    } else if (!data_loc(raw.value, offset, length)) {
      return std::nullopt;
    } else if (length == 0 && !raw.hex) {
      // A uprobe fetch-arg whose read faulted or met NULL (the kernel
      // stores "" as its NUL, length 1).
      return std::nullopt;
    }
    if (raw.hex) {
      if (hex_text == nullptr) return std::nullopt;
      static const char kDigits[] = "0123456789abcdef";
      // Two digits a byte: cut at whole bytes within --string-bytes.
      size_t bytes = std::min<size_t>(length, string_bytes / 2);
      hex_text->clear();
      for (size_t i = 0; i < bytes; ++i) {
        uint8_t b = data[offset + i];
        *hex_text += kDigits[b >> 4];
        *hex_text += kDigits[b & 15];
      }
      string->bytes = *hex_text;
      string->truncated = bytes < length;
      return reinterpret_cast<uint64_t>(string);
    }
    const char* bytes = reinterpret_cast<const char*>(data + offset);
    size_t n = strnlen(bytes, length);
    // The kernel cuts at its own limit, NUL included: a string that fills
    // it may have been longer.
    bool truncated = raw.fixed == 0 && length >= 4096 && n + 1 >= length;
    if (n > string_bytes) {
      n = string_bytes;
      truncated = true;
    }
    string->bytes = std::string_view(bytes, n);
    string->truncated = truncated;
    return reinterpret_cast<uint64_t>(string);
  }
  if (raw.value < 0 || raw.size == 0 || raw.size > 8 ||
      static_cast<size_t>(raw.value) + raw.size > size) {
    return std::nullopt;
  }
  uint64_t v = 0;
  std::memcpy(&v, data + raw.value, raw.size);
  if (v == 0) {
    // A faulted read also stores 0: the detectors tell (fetch_args.h).
    uint32_t offset, length;
    if (raw.first >= 0 && (!data_loc(raw.first, offset, length) || length == 0)) return std::nullopt;
    if (raw.last >= 0 && (!data_loc(raw.last, offset, length) || length == 0)) return std::nullopt;
  }
  return extend_arg(v, spec.size, spec.is_signed && !spec.is_float);
}

}  // namespace usdt::record
