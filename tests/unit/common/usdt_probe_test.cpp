// Tests of read_usdt_file against the fixture programs and synthetic ELF
// files. Expected values are computed independently of libelf: the fixtures'
// section headers are read with plain <elf.h> structs, and a note's file
// offset comes from the section that contains its address
// (addr - sh_addr + sh_offset), not from the program headers.
#include "common/usdt_probe.h"

#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "common/file_io.h"
#include "fixture_paths.h"
#include "tests/skip_case.h"

using namespace usdt;

namespace {

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string write_temp(const std::string& bytes) {
  char tmpl[] = "/tmp/usdt_probe_test_XXXXXX";
  int fd = mkstemp(tmpl);
  REQUIRE(fd >= 0);
  UniqueFd owner(fd);
  REQUIRE(write_all(fd, bytes.data(), bytes.size()).ok());
  return tmpl;
}

// ---- independent reading of a 64-bit little-endian ELF (the fixtures) ----

struct RawNote {
  uint64_t pc, base, semaphore;
  std::string provider, name, args;
  size_t desc_file_offset;  // where the descriptor starts in the file
};

struct RawElf {
  std::string bytes;
  Elf64_Ehdr ehdr;
  std::vector<Elf64_Shdr> sections;
  std::vector<std::string> names;

  explicit RawElf(const std::string& path) : bytes(read_bytes(path)) {
    REQUIRE(bytes.size() >= sizeof ehdr);
    std::memcpy(&ehdr, bytes.data(), sizeof ehdr);
    REQUIRE(ehdr.e_ident[EI_CLASS] == ELFCLASS64);
    for (size_t i = 0; i < ehdr.e_shnum; ++i) {
      Elf64_Shdr sh;
      std::memcpy(&sh, bytes.data() + ehdr.e_shoff + i * sizeof sh, sizeof sh);
      sections.push_back(sh);
    }
    const Elf64_Shdr& strtab = sections.at(ehdr.e_shstrndx);
    for (const auto& sh : sections) names.emplace_back(bytes.data() + strtab.sh_offset + sh.sh_name);
  }

  const Elf64_Shdr* section(const std::string& name) const {
    for (size_t i = 0; i < sections.size(); ++i) {
      if (names[i] == name) return &sections[i];
    }
    return nullptr;
  }

  // File offset of an address, through the allocated section containing it.
  uint64_t offset_of(uint64_t addr) const {
    for (const auto& sh : sections) {
      if ((sh.sh_flags & SHF_ALLOC) && sh.sh_type != SHT_NOBITS && addr >= sh.sh_addr &&
          addr < sh.sh_addr + sh.sh_size) {
        return addr - sh.sh_addr + sh.sh_offset;
      }
    }
    FAIL("no section contains address " << addr);
    return 0;
  }

  std::vector<RawNote> notes() const {
    const Elf64_Shdr* sh = section(".note.stapsdt");
    REQUIRE(sh != nullptr);
    std::vector<RawNote> out;
    size_t at = sh->sh_offset, end = sh->sh_offset + sh->sh_size;
    auto align4 = [](size_t v) { return (v + 3) & ~size_t{3}; };
    while (at < end) {
      Elf64_Nhdr nh;
      std::memcpy(&nh, bytes.data() + at, sizeof nh);
      size_t name_at = at + sizeof nh;
      size_t desc_at = name_at + align4(nh.n_namesz);
      if (nh.n_type == 3) {
        RawNote n;
        std::memcpy(&n.pc, bytes.data() + desc_at, 8);
        std::memcpy(&n.base, bytes.data() + desc_at + 8, 8);
        std::memcpy(&n.semaphore, bytes.data() + desc_at + 16, 8);
        const char* s = bytes.data() + desc_at + 24;
        n.provider = s;
        s += n.provider.size() + 1;
        n.name = s;
        s += n.name.size() + 1;
        n.args = s;
        n.desc_file_offset = desc_at;
        out.push_back(n);
      }
      at = desc_at + align4(nh.n_descsz);
    }
    return out;
  }

  std::string build_id() const {
    for (size_t i = 0; i < sections.size(); ++i) {
      if (sections[i].sh_type != SHT_NOTE || names[i] != ".note.gnu.build-id") continue;
      Elf64_Nhdr nh;
      std::memcpy(&nh, bytes.data() + sections[i].sh_offset, sizeof nh);
      const auto* desc = reinterpret_cast<const unsigned char*>(bytes.data()) + sections[i].sh_offset +
                         sizeof nh + ((nh.n_namesz + 3) & ~3u);
      std::string hex;
      char buf[3];
      for (size_t k = 0; k < nh.n_descsz; ++k) {
        std::snprintf(buf, sizeof buf, "%02x", desc[k]);
        hex += buf;
      }
      return hex;
    }
    return "";
  }
};

const UsdtProbe* find_probe(const UsdtFile& f, const std::string& provider, const std::string& name) {
  for (const auto& p : f.probes) {
    if (p.provider == provider && p.name == name) return &p;
  }
  return nullptr;
}

// Compares everything read_usdt_file says with the independent reading.
void check_against_raw(const std::string& path) {
  INFO(path);
  RawElf raw(path);
  auto file = read_usdt_file(path);
  REQUIRE(file.ok());
  CHECK(file->path == path);
  CHECK(file->open_path == path);
  CHECK(file->arch == Arch::x86_64);
  CHECK(file->build_id == raw.build_id());
  CHECK_FALSE(file->build_id.empty());

  auto notes = raw.notes();
  // Flatten ours in note order per probe and match note by note.
  std::map<std::pair<std::string, std::string>, size_t> seen;
  size_t total = 0;
  for (const auto& p : file->probes) total += p.locations.size();
  CHECK(total == notes.size());
  for (const auto& n : notes) {
    const UsdtProbe* p = find_probe(*file, n.provider, n.name);
    REQUIRE(p != nullptr);
    size_t k = seen[{n.provider, n.name}]++;
    REQUIRE(k < p->locations.size());
    const UsdtLocation& loc = p->locations[k];
    INFO(n.provider << ":" << n.name << " #" << k);
    CHECK(loc.address == n.pc);
    CHECK(loc.base == n.base);
    CHECK(loc.file_offset == raw.offset_of(n.pc));
    CHECK(loc.semaphore_address == n.semaphore);
    if (n.semaphore != 0) {
      CHECK(loc.semaphore_offset == raw.offset_of(n.semaphore));
      // The semaphore lives in .probes.
      const Elf64_Shdr* probes = raw.section(".probes");
      REQUIRE(probes != nullptr);
      CHECK(n.semaphore >= probes->sh_addr);
      CHECK(n.semaphore < probes->sh_addr + probes->sh_size);
    } else {
      CHECK(loc.semaphore_offset == 0);
    }
    CHECK(loc.args_text == n.args);
  }
  // Note order: the first probe is the first note's.
  REQUIRE_FALSE(file->probes.empty());
  CHECK(file->probes.front().name == notes.front().name);
}

std::vector<std::string> texts(const UsdtLocation& loc) {
  std::vector<std::string> out;
  for (const auto& a : loc.args) out.push_back(a.text);
  return out;
}

const char* const kProbeFixtures[] = {FIXTURE_PROBES_PIE_O0, FIXTURE_PROBES_PIE_O2,
                                      FIXTURE_PROBES_NOPIE_O0, FIXTURE_PROBES_NOPIE_O2};

}  // namespace

TEST_CASE("fixture notes match an independent reading", "[usdt_probe]") {
  for (const char* path : kProbeFixtures) check_against_raw(path);
  check_against_raw(FIXTURE_LIB);
  check_against_raw(FIXTURE_USELIB);
}

TEST_CASE("fixture probes, locations and argument specs", "[usdt_probe]") {
  for (const char* path : kProbeFixtures) {
    INFO(path);
    auto file = read_usdt_file(path);
    REQUIRE(file.ok());
    CHECK(file->probes.size() == 18);  // args0..args12, types, constants, multi, guarded, done
    for (int k = 0; k <= 12; ++k) {
      const UsdtProbe* p = find_probe(*file, "fixture", "args" + std::to_string(k));
      REQUIRE(p != nullptr);
      REQUIRE(p->locations.size() == 1);
      const auto& args = p->locations[0].args;
      REQUIRE(args.size() == static_cast<size_t>(k));
      for (const auto& a : args) {
        INFO(a.text);
        CHECK(a.size == 8);
        CHECK(a.is_signed);
        CHECK(a.location != ArgLocation::undecodable);
      }
    }
    const UsdtProbe* types = find_probe(*file, "fixture", "types");
    REQUIRE(types != nullptr);
    const auto& t = types->locations.at(0).args;
    REQUIRE(t.size() == 8);
    const uint8_t sizes[] = {1, 1, 2, 2, 4, 4, 8, 8};
    for (size_t i = 0; i < 8; ++i) {
      INFO(t[i].text);
      CHECK(t[i].size == sizes[i]);
      CHECK(t[i].is_signed == (i % 2 == 0));
      CHECK(t[i].location != ArgLocation::undecodable);
    }
    const UsdtProbe* constants = find_probe(*file, "fixture", "constants");
    REQUIRE(constants != nullptr);
    CHECK(texts(constants->locations.at(0)) ==
          std::vector<std::string>{"-4@$42", "-4@$-7", "-4@$4660", "1@$-1"});
    const auto& c = constants->locations.at(0).args;
    CHECK(c[0].constant == 42);
    CHECK(c[1].constant == -7);
    CHECK(c[2].constant == 0x1234);
    CHECK(c[3].constant == 255);

    const UsdtProbe* multi = find_probe(*file, "fixture", "multi");
    REQUIRE(multi != nullptr);
    REQUIRE(multi->locations.size() == 2);
    CHECK(multi->locations[0].address != multi->locations[1].address);

    const UsdtProbe* guarded = find_probe(*file, "fixture", "guarded");
    REQUIRE(guarded != nullptr);
    CHECK(guarded->locations.at(0).semaphore_address != 0);
    CHECK(guarded->locations.at(0).semaphore_offset != 0);
    const UsdtProbe* done = find_probe(*file, "fixture", "done");
    REQUIRE(done != nullptr);
    CHECK(done->locations.at(0).semaphore_address == 0);
  }
}

TEST_CASE("PIE and non-PIE addresses", "[usdt_probe]") {
  auto pie = read_usdt_file(FIXTURE_PROBES_PIE_O2);
  auto nopie = read_usdt_file(FIXTURE_PROBES_NOPIE_O2);
  REQUIRE(pie.ok());
  REQUIRE(nopie.ok());
  const auto& pie_loc = find_probe(*pie, "fixture", "done")->locations.at(0);
  const auto& nopie_loc = find_probe(*nopie, "fixture", "done")->locations.at(0);
  // Non-PIE executables are linked at 0x400000, the first PT_LOAD at offset 0.
  CHECK(nopie_loc.address >= 0x400000);
  CHECK(nopie_loc.file_offset == nopie_loc.address - 0x400000);
  CHECK(pie_loc.address < 0x400000);
}

TEST_CASE("shared library probes", "[usdt_probe]") {
  auto lib = read_usdt_file(FIXTURE_LIB);
  REQUIRE(lib.ok());
  REQUIRE(lib->probes.size() == 2);
  CHECK(lib->probes[0].provider == "fixturelib");
  CHECK(lib->probes[0].name == "call");
  CHECK(lib->probes[1].name == "loaded");
  CHECK(lib->probes[1].locations.at(0).args.empty());
  CHECK(lib->probes[0].locations.at(0).args.size() == 2);
}

TEST_CASE("files without probes and bad files", "[usdt_probe]") {
  auto none = read_usdt_file(FIXTURE_NOPROBES);
  REQUIRE(none.ok());
  CHECK(none->probes.empty());

  auto missing = read_usdt_file("/nonexistent/file");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message().find("/nonexistent/file") != std::string::npos);

  std::string text = write_temp("just some text, long enough to look like a header............");
  auto not_elf = read_usdt_file(text);
  REQUIRE_FALSE(not_elf.ok());
  CHECK(not_elf.error().message() == "'" + text + "' is not an ELF file");
  unlink(text.c_str());

  auto display = read_usdt_file(FIXTURE_LIB, "/shown/libfixture_lib.so");
  REQUIRE(display.ok());
  CHECK(display->path == "/shown/libfixture_lib.so");
  CHECK(display->open_path == FIXTURE_LIB);
}

TEST_CASE("corrupted fixture notes give errors naming file and note", "[usdt_probe]") {
  RawElf raw(FIXTURE_PROBES_NOPIE_O2);
  auto notes = raw.notes();
  REQUIRE(notes.size() > 3);

  SECTION("address outside every PT_LOAD") {
    std::string bytes = raw.bytes;
    uint64_t bad = 0x7fff00000000;
    std::memcpy(bytes.data() + notes[2].desc_file_offset, &bad, 8);
    std::string path = write_temp(bytes);
    auto r = read_usdt_file(path);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message() == "cannot read USDT notes of '" + path + "': note 2 (" + notes[2].provider +
                                     ":" + notes[2].name +
                                     "): address 0x7fff00000000 is outside every loadable segment");
    unlink(path.c_str());
  }
  SECTION("semaphore outside every PT_LOAD") {
    std::string bytes = raw.bytes;
    uint64_t bad = 0x7fff00000000;
    std::memcpy(bytes.data() + notes[1].desc_file_offset + 16, &bad, 8);
    std::string path = write_temp(bytes);
    auto r = read_usdt_file(path);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message().find("note 1 (") != std::string::npos);
    CHECK(r.error().message().find("semaphore 0x7fff00000000 is outside every loadable segment") !=
          std::string::npos);
    unlink(path.c_str());
  }
  SECTION("descriptor size past the section end") {
    std::string bytes = raw.bytes;
    const Elf64_Shdr* sh = raw.section(".note.stapsdt");
    uint32_t huge = 0xffff;
    // Note 0's header is at the section start: n_namesz, n_descsz, n_type.
    std::memcpy(bytes.data() + sh->sh_offset + 4, &huge, 4);
    std::string path = write_temp(bytes);
    auto r = read_usdt_file(path);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message() == "cannot read USDT notes of '" + path + "': note 0 is truncated at offset 0x0");
    unlink(path.c_str());
  }
  SECTION("strings without a terminating NUL") {
    std::string bytes = raw.bytes;
    const RawNote& n = notes[0];
    size_t strings = n.desc_file_offset + 24;
    size_t len = n.provider.size() + n.name.size() + n.args.size() + 3;
    for (size_t i = strings; i < strings + len; ++i) {
      if (bytes[i] == '\0') bytes[i] = 'x';
    }
    std::string path = write_temp(bytes);
    auto r = read_usdt_file(path);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message().find("note 0 at offset 0x0: provider, name or argument string is not "
                                   "NUL-terminated") != std::string::npos);
    unlink(path.c_str());
  }
}

TEST_CASE("truncated and bit-flipped files never crash", "[usdt_probe]") {
  RawElf raw(FIXTURE_PROBES_PIE_O2);
  const Elf64_Shdr* sh = raw.section(".note.stapsdt");
  REQUIRE(sh != nullptr);
  std::string path = write_temp("");
  size_t step = raw.bytes.size() / 150 + 1;
  for (size_t n = 0; n < raw.bytes.size(); n += step) {
    std::ofstream(path, std::ios::binary | std::ios::trunc).write(raw.bytes.data(), static_cast<std::streamsize>(n));
    auto r = read_usdt_file(path);
    if (r.ok()) {
      for (const auto& p : r->probes) CHECK_FALSE(p.locations.empty());
    }
  }
  // Flip each byte of the note section in turn.
  for (size_t i = sh->sh_offset; i < sh->sh_offset + sh->sh_size; i += 3) {
    std::string bytes = raw.bytes;
    bytes[i] = static_cast<char>(bytes[i] ^ 0x5a);
    std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    auto r = read_usdt_file(path);
    if (!r.ok()) CHECK(r.error().message().find(path) != std::string::npos);
  }
  unlink(path.c_str());
}

// ---- synthetic ELF files: 32/64-bit, both byte orders, prelink ----

namespace {

struct SynthNote {
  uint64_t pc, base, semaphore;
  std::string provider, name, args;
};

class Writer {
 public:
  Writer(bool big_endian) : big_(big_endian) {}
  void put(size_t at, uint64_t v, size_t size) {
    if (bytes.size() < at + size) bytes.resize(at + size, '\0');
    for (size_t i = 0; i < size; ++i) {
      size_t shift = big_ ? (size - 1 - i) * 8 : i * 8;
      bytes[at + i] = static_cast<char>((v >> shift) & 0xff);
    }
  }
  void put_bytes(size_t at, const std::string& s) {
    if (bytes.size() < at + s.size()) bytes.resize(at + s.size(), '\0');
    std::memcpy(bytes.data() + at, s.data(), s.size());
  }
  std::string bytes;

 private:
  bool big_;
};

// One PT_LOAD (vaddr 0x400000, file offset 0, 0x10000 bytes), a
// .note.stapsdt, optionally a .stapsdt.base at base_section_addr, .shstrtab.
std::string build_elf(bool is64, bool big, uint16_t machine, const std::vector<SynthNote>& notes,
                      std::optional<uint64_t> base_section_addr = std::nullopt) {
  Writer w(big);
  const size_t word = is64 ? 8 : 4;
  const size_t ehsize = is64 ? 64 : 52, phentsize = is64 ? 56 : 32, shentsize = is64 ? 64 : 40;
  const size_t phoff = ehsize;
  size_t at = phoff + phentsize;

  // Notes.
  const size_t note_off = at;
  for (const auto& n : notes) {
    std::string desc(3 * word, '\0');
    Writer d(big);
    d.put(0, n.pc, word);
    d.put(word, n.base, word);
    d.put(2 * word, n.semaphore, word);
    desc = d.bytes + n.provider + '\0' + n.name + '\0' + n.args + '\0';
    w.put(at, 8, 4);
    w.put(at + 4, desc.size(), 4);
    w.put(at + 8, 3, 4);
    w.put_bytes(at + 12, std::string("stapsdt\0", 8));
    w.put_bytes(at + 20, desc);
    at += 20 + ((desc.size() + 3) & ~size_t{3});
  }
  const size_t note_size = at - note_off;
  const size_t base_off = at;
  if (base_section_addr) w.put(at++, 0x90, 1);
  std::string shstrtab = std::string("\0.note.stapsdt\0.stapsdt.base\0.shstrtab\0", 40);
  const size_t shstr_off = at;
  w.put_bytes(at, shstrtab);
  at += shstrtab.size();
  at = (at + 7) & ~size_t{7};
  const size_t shoff = at;
  const size_t shnum = base_section_addr ? 4 : 3;

  // ELF header.
  w.put_bytes(0, std::string("\177ELF", 4));
  w.put(4, is64 ? ELFCLASS64 : ELFCLASS32, 1);
  w.put(5, big ? ELFDATA2MSB : ELFDATA2LSB, 1);
  w.put(6, EV_CURRENT, 1);
  w.put(16, ET_EXEC, 2);
  w.put(18, machine, 2);
  w.put(20, EV_CURRENT, 4);
  w.put(24, 0x400000, word);                          // e_entry
  w.put(24 + word, phoff, word);                      // e_phoff
  w.put(24 + 2 * word, shoff, word);                  // e_shoff
  size_t rest = 24 + 3 * word + 4;                    // after e_flags
  w.put(rest, ehsize, 2);
  w.put(rest + 2, phentsize, 2);
  w.put(rest + 4, 1, 2);
  w.put(rest + 6, shentsize, 2);
  w.put(rest + 8, shnum, 2);
  w.put(rest + 10, shnum - 1, 2);                     // .shstrtab is last

  // PT_LOAD.
  if (is64) {
    w.put(phoff, PT_LOAD, 4);
    w.put(phoff + 4, PF_R | PF_X, 4);
    w.put(phoff + 8, 0, 8);
    w.put(phoff + 16, 0x400000, 8);
    w.put(phoff + 24, 0x400000, 8);
    w.put(phoff + 32, 0x10000, 8);
    w.put(phoff + 40, 0x10000, 8);
    w.put(phoff + 48, 0x1000, 8);
  } else {
    w.put(phoff, PT_LOAD, 4);
    w.put(phoff + 4, 0, 4);
    w.put(phoff + 8, 0x400000, 4);
    w.put(phoff + 12, 0x400000, 4);
    w.put(phoff + 16, 0x10000, 4);
    w.put(phoff + 20, 0x10000, 4);
    w.put(phoff + 24, PF_R | PF_X, 4);
    w.put(phoff + 28, 0x1000, 4);
  }

  auto section = [&](size_t index, uint32_t name, uint32_t type, uint64_t flags, uint64_t addr,
                     uint64_t offset, uint64_t size, uint64_t align) {
    size_t s = shoff + index * shentsize;
    w.put(s, name, 4);
    w.put(s + 4, type, 4);
    if (is64) {
      w.put(s + 8, flags, 8);
      w.put(s + 16, addr, 8);
      w.put(s + 24, offset, 8);
      w.put(s + 32, size, 8);
      w.put(s + 48, align, 8);
    } else {
      w.put(s + 8, flags, 4);
      w.put(s + 12, addr, 4);
      w.put(s + 16, offset, 4);
      w.put(s + 20, size, 4);
      w.put(s + 32, align, 4);
    }
  };
  section(0, 0, SHT_NULL, 0, 0, 0, 0, 0);
  section(1, 1, SHT_NOTE, 0, 0, note_off, note_size, 4);
  if (base_section_addr) section(2, 15, SHT_PROGBITS, SHF_ALLOC, *base_section_addr, base_off, 1, 1);
  section(shnum - 1, 29, SHT_STRTAB, 0, 0, shstr_off, shstrtab.size(), 1);
  w.put(shoff + shnum * shentsize - 1, 0, 1);
  return w.bytes;
}

UsdtFile read_synthetic(const std::string& bytes) {
  std::string path = write_temp(bytes);
  auto r = read_usdt_file(path);
  unlink(path.c_str());
  if (!r.ok()) FAIL(r.error().message());
  return std::move(*r);
}

}  // namespace

TEST_CASE("32- and 64-bit, little- and big-endian notes", "[usdt_probe]") {
  const std::vector<SynthNote> notes = {
      {0x401000, 0x402000, 0x403000, "prov", "first", "-4@%eax 8@$5"},
      {0x401010, 0x402000, 0, "prov", "second", ""},
      {0x401020, 0x402000, 0, "prov", "first", "-4@%ebx 8@$6"},
  };
  struct Variant {
    bool is64, big;
    uint16_t machine;
  };
  const Variant variants[] = {{true, false, EM_X86_64}, {true, true, EM_PPC64}, {false, false, EM_386},
                              {false, true, EM_PPC}};
  for (const auto& v : variants) {
    INFO("64-bit " << v.is64 << " big-endian " << v.big);
    UsdtFile f = read_synthetic(build_elf(v.is64, v.big, v.machine, notes));
    REQUIRE(f.probes.size() == 2);
    CHECK(f.probes[0].name == "first");
    CHECK(f.probes[1].name == "second");
    REQUIRE(f.probes[0].locations.size() == 2);
    const auto& a = f.probes[0].locations[0];
    CHECK(a.address == 0x401000);
    CHECK(a.file_offset == 0x1000);
    CHECK(a.base == 0x402000);
    CHECK(a.semaphore_address == 0x403000);
    CHECK(a.semaphore_offset == 0x3000);
    CHECK(a.args_text == "-4@%eax 8@$5");
    REQUIRE(a.args.size() == 2);
    CHECK(a.args[1].constant == 5);
    const auto& b = f.probes[0].locations[1];
    CHECK(b.address == 0x401020);
    CHECK(b.file_offset == 0x1020);
    CHECK(b.args_text == "-4@%ebx 8@$6");
    CHECK(f.probes[1].locations.at(0).args.empty());
    CHECK(f.probes[1].locations.at(0).semaphore_offset == 0);
    CHECK(f.build_id.empty());
  }
}

TEST_CASE("prelink: .stapsdt.base moved shifts pc and semaphore", "[usdt_probe]") {
  const std::vector<SynthNote> notes = {{0x401000, 0x402000, 0x403000, "p", "n", ""}};
  UsdtFile same = read_synthetic(build_elf(true, false, EM_X86_64, notes, 0x402000));
  CHECK(same.probes.at(0).locations.at(0).address == 0x401000);
  UsdtFile moved = read_synthetic(build_elf(true, false, EM_X86_64, notes, 0x402100));
  const auto& loc = moved.probes.at(0).locations.at(0);
  CHECK(loc.address == 0x401100);
  CHECK(loc.file_offset == 0x1100);
  CHECK(loc.semaphore_address == 0x403100);
  CHECK(loc.semaphore_offset == 0x3100);
  CHECK(loc.base == 0x402000);
}

TEST_CASE("synthetic malformed notes", "[usdt_probe]") {
  auto fails = [](const std::string& bytes) {
    std::string path = write_temp(bytes);
    auto r = read_usdt_file(path);
    unlink(path.c_str());
    REQUIRE_FALSE(r.ok());
    return r.error().message();
  };
  auto outside = fails(build_elf(true, false, EM_X86_64, {{0x500000, 0, 0, "p", "n", ""}}));
  CHECK(outside.find("note 0 (p:n): address 0x500000 is outside every loadable segment") != std::string::npos);
  auto empty_name = fails(build_elf(false, true, EM_PPC, {{0x401000, 0, 0, "p", "", ""}}));
  CHECK(empty_name.find("note 0 at offset 0x0: empty provider or probe name") != std::string::npos);
  // A descriptor too short for three addresses.
  std::string bytes = build_elf(true, false, EM_X86_64, {{0x401000, 0, 0, "p", "n", ""}});
  Writer w(false);
  w.bytes = bytes;
  w.put(64 + 56 + 4, 12, 4);  // n_descsz of note 0
  auto short_desc = fails(w.bytes);
  Writer rel(false);
  rel.bytes = bytes;
  rel.put(16, ET_REL, 2);
  CHECK(fails(rel.bytes).find("': it is a relocatable object file: probes get addresses only once linked") !=
        std::string::npos);
  CHECK(short_desc.find("note 0 at offset 0x0: descriptor is 12 bytes, too short for 3 addresses") !=
        std::string::npos);
}

TEST_CASE("sym(%rip) operands are resolved through the symbol table",
          "[.real][postgres_symbols][usdt_probe]") {
  // Real binaries: PostgreSQL references NBuffers; skipped when it is absent.
  const char* postgres = "/usr/lib/postgresql/15/bin/postgres";
  if (access(postgres, R_OK) != 0) usdt::test::skip_case(std::string(postgres) + " is not installed");
  auto file = read_usdt_file(postgres);
  REQUIRE(file.ok());
  size_t sites = 0, nbuffers = 0;
  for (const auto& p : file->probes) {
    for (const auto& l : p.locations) {
      ++sites;
      for (const auto& a : l.args) {
        if (a.symbol != "NBuffers") continue;
        ++nbuffers;
        CHECK(a.symbol_resolved);
        CHECK(a.symbol_address != 0);
        CHECK(a.error.empty());
      }
    }
  }
  CHECK(sites == 71);
  CHECK(nbuffers > 0);
}

TEST_CASE("fixture globals: a unique symbol resolves, a shared static name is ambiguous", "[usdt_probe]") {
  RawElf raw(FIXTURE_SYMBOLS);
  // The independent view: .symtab entries named "total" and "counter".
  const Elf64_Shdr* symtab = raw.section(".symtab");
  REQUIRE(symtab != nullptr);
  const Elf64_Shdr& strtab = raw.sections.at(symtab->sh_link);
  std::vector<uint64_t> total, counter;
  for (size_t off = 0; off + sizeof(Elf64_Sym) <= symtab->sh_size; off += sizeof(Elf64_Sym)) {
    Elf64_Sym sym;
    std::memcpy(&sym, raw.bytes.data() + symtab->sh_offset + off, sizeof sym);
    std::string name = raw.bytes.data() + strtab.sh_offset + sym.st_name;
    if (name == "total") total.push_back(sym.st_value);
    if (name == "counter") counter.push_back(sym.st_value);
  }
  REQUIRE(total.size() == 1);
  REQUIRE(counter.size() == 2);

  auto file = read_usdt_file(FIXTURE_SYMBOLS);
  REQUIRE(file.ok());
  const UsdtProbe* first = find_probe(*file, "symbols", "first");
  REQUIRE(first != nullptr);
  const auto& args = first->locations.at(0).args;
  REQUIRE(args.size() == 2);
  CHECK(args[0].text == "-4@counter(%rip)");
  CHECK(args[0].symbol == "counter");
  CHECK_FALSE(args[0].symbol_resolved);
  CHECK(args[0].error == "ambiguous symbol");
  CHECK(describe(args[0], Arch::x86_64) == "int32 at counter(%rip) (ambiguous symbol)");
  CHECK(args[1].text == "-8@total(%rip)");
  CHECK(args[1].symbol_resolved);
  CHECK(args[1].symbol_address == total[0]);
  // A PIE: the address moves with the file's load bias.
  CHECK(raw.ehdr.e_type == ET_DYN);
  CHECK_FALSE(args[1].symbol_fixed);
  CHECK(args[1].error.empty());
  CHECK(arg_source(args[1], Arch::x86_64) == ArgSource::not_in_sample);
  const UsdtProbe* second = find_probe(*file, "symbols", "second");
  REQUIRE(second != nullptr);
  CHECK(second->locations.at(0).args.at(0).error == "ambiguous symbol");
}
