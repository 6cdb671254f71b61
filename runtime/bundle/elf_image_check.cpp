#include "runtime/bundle/elf_image_check.h"

#include <elf.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "core/error.h"

namespace nee {

namespace {

#if defined(__x86_64__)
constexpr uint16_t kHostMachine = EM_X86_64;
constexpr uint32_t kRelativeRelocation = R_X86_64_RELATIVE;
#elif defined(__aarch64__)
constexpr uint16_t kHostMachine = EM_AARCH64;
constexpr uint32_t kRelativeRelocation = R_AARCH64_RELATIVE;
#else
#error "kernel bundles are built for x86-64 and arm64 (core/isa_level.h)"
#endif
constexpr unsigned char kHostByteOrder = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;

std::string machine_name(uint16_t machine) {
  switch (machine) {
    case EM_X86_64:
      return "x86-64";
    case EM_AARCH64:
      return "arm64";
    case EM_386:
      return "32-bit x86";
    case EM_ARM:
      return "32-bit arm";
    case EM_RISCV:
      return "risc-v";
    case EM_PPC64:
      return "powerpc64";
    case EM_S390:
      return "s390";
    default:
      return fmt::format("machine number {}", machine);
  }
}

std::string type_name(uint16_t type) {
  switch (type) {
    case ET_REL:
      return "a relocatable object (.o)";
    case ET_EXEC:
      return "an executable";
    case ET_CORE:
      return "a core dump";
    default:
      return fmt::format("of ELF type {}", type);
  }
}

// [offset, offset + length) lies inside `size` bytes, without overflowing.
bool inside(uint64_t offset, uint64_t length, uint64_t size) { return offset <= size && length <= size - offset; }

class ElfCheck {
 public:
  ElfCheck(const std::string& image, const std::string& what) : image_(image), what_(what) {}

  void run() {
    header();
    segments();
    dynamic_section();
  }

 private:
  template <typename... Args>
  [[noreturn]] void fail(fmt::format_string<Args...> format, Args&&... args) const {
    throw Error(what_ + ": " + fmt::format(format, std::forward<Args>(args)...));
  }

  template <typename T>
  T at(uint64_t offset) const {
    T value;
    std::memcpy(&value, image_.data() + offset, sizeof value);
    return value;
  }

  void header() {
    if (image_.size() < sizeof(Elf64_Ehdr)) {
      if (image_.size() < SELFMAG || std::memcmp(image_.data(), ELFMAG, SELFMAG) != 0) not_elf();
      fail("is {} bytes, too short for an ELF header ({} bytes): truncated", image_.size(), sizeof(Elf64_Ehdr));
    }
    if (std::memcmp(image_.data(), ELFMAG, SELFMAG) != 0) not_elf();
    header_ = at<Elf64_Ehdr>(0);
    const unsigned char* ident = header_.e_ident;
    if (ident[EI_CLASS] != ELFCLASS64) {
      fail("is a {} ELF file; this runtime loads 64-bit libraries",
           ident[EI_CLASS] == ELFCLASS32 ? "32-bit" : fmt::format("class {}", ident[EI_CLASS]));
    }
    if (ident[EI_DATA] != kHostByteOrder) fail("has another byte order than this CPU (bad ELF header)");
    if (ident[EI_VERSION] != EV_CURRENT || header_.e_version != EV_CURRENT) fail("has a bad ELF header (version)");
    if (header_.e_type != ET_DYN) fail("is {}, not a shared library", type_name(header_.e_type));
    if (header_.e_machine != kHostMachine) {
      fail("is built for {}, this CPU is {}", machine_name(header_.e_machine), machine_name(kHostMachine));
    }
    if (header_.e_ehsize != sizeof(Elf64_Ehdr) || header_.e_phentsize != sizeof(Elf64_Phdr) || header_.e_phnum == 0 ||
        header_.e_phnum == PN_XNUM) {
      fail("has a bad ELF header (header size {}, program header size {}, {} program headers)", header_.e_ehsize,
           header_.e_phentsize, header_.e_phnum);
    }
    if (!inside(header_.e_phoff, uint64_t{header_.e_phnum} * sizeof(Elf64_Phdr), image_.size())) {
      fail("has a bad ELF header: its {} program headers at byte {} run past the end of the file ({} bytes)",
           header_.e_phnum, header_.e_phoff, image_.size());
    }
  }

  [[noreturn]] void not_elf() const {
    const size_t n = std::min<size_t>(image_.size(), 4);
    std::string start;
    for (size_t i = 0; i < n; ++i)
      start += fmt::format("{}{:02x}", i ? " " : "", static_cast<unsigned char>(image_[i]));
    fail("is not an ELF shared library (it starts with bytes {}, not 7f 45 4c 46)", n ? start : "none: it is empty");
  }

  void segments() {
    std::optional<Elf64_Phdr> dynamic;
    for (unsigned i = 0; i < header_.e_phnum; ++i) {
      const auto p = at<Elf64_Phdr>(header_.e_phoff + uint64_t{i} * sizeof(Elf64_Phdr));
      if (p.p_type == PT_DYNAMIC) {
        if (dynamic) fail("has two dynamic segments (bad program header {})", i);
        dynamic = p;
      }
      if (p.p_type != PT_LOAD) continue;
      if (!inside(p.p_offset, p.p_filesz, image_.size())) {
        fail("is truncated or damaged: its loaded segment {} holds bytes {} to {}, but the file has {} bytes", i,
             p.p_offset, p.p_offset + p.p_filesz, image_.size());
      }
      if (p.p_filesz > p.p_memsz || p.p_vaddr + p.p_memsz < p.p_vaddr) {
        fail("has a bad program header {} (file size {}, memory size {})", i, p.p_filesz, p.p_memsz);
      }
      if (p.p_align > 1 && ((p.p_align & (p.p_align - 1)) != 0 || (p.p_vaddr - p.p_offset) % p.p_align != 0)) {
        fail("has a bad program header {} (alignment {} of address {:#x} at byte {})", i, p.p_align, p.p_vaddr,
             p.p_offset);
      }
      if (!loads_.empty() && p.p_vaddr < loads_.back().p_vaddr + loads_.back().p_memsz) {
        fail("has a bad program header {}: loaded segments overlap or are out of order", i);
      }
      loads_.push_back(p);
    }
    if (loads_.empty()) fail("has no loaded segment (bad program headers)");
    if (!dynamic) fail("has no dynamic segment: not a shared library");
    if (dynamic->p_filesz % sizeof(Elf64_Dyn) != 0 || !file_offset(dynamic->p_vaddr, dynamic->p_filesz) ||
        *file_offset(dynamic->p_vaddr, dynamic->p_filesz) != dynamic->p_offset) {
      fail("has a bad dynamic segment (at byte {}, {} bytes): it is not where a loaded segment puts it",
           dynamic->p_offset, dynamic->p_filesz);
    }
    dynamic_ = *dynamic;
  }

  // The file offset of the bytes a loaded segment maps at [vaddr, vaddr + length), when
  // the file holds all of them.
  std::optional<uint64_t> file_offset(uint64_t vaddr, uint64_t length) const {
    for (const Elf64_Phdr& p : loads_) {
      if (vaddr >= p.p_vaddr && inside(vaddr - p.p_vaddr, length, p.p_filesz)) return p.p_offset + (vaddr - p.p_vaddr);
    }
    return std::nullopt;
  }

  // [vaddr, vaddr + length) lies inside the memory of one loaded segment that has the
  // permissions `flags` (PF_X, PF_W) at least.
  bool mapped(uint64_t vaddr, uint64_t length, uint32_t flags = 0) const {
    for (const Elf64_Phdr& p : loads_) {
      if (vaddr >= p.p_vaddr && inside(vaddr - p.p_vaddr, length, p.p_memsz)) return (p.p_flags & flags) == flags;
    }
    return false;
  }

  std::optional<uint64_t> value(int64_t tag) const {
    for (const Elf64_Dyn& d : entries_) {
      if (d.d_tag == tag) return d.d_un.d_val;
    }
    return std::nullopt;
  }

  // The file offset of a table the dynamic section points to, of the size another entry
  // gives, which ld.so reads whole.
  std::optional<uint64_t> sized_table(const char* name, int64_t addr_tag, int64_t size_tag) const {
    const std::optional<uint64_t> addr = value(addr_tag), size = value(size_tag);
    if (!addr && !size) return std::nullopt;
    if (!addr || !size) fail("has a bad dynamic section: its {} lacks an address or a size", name);
    return table(name, *addr, *size);
  }

  void dynamic_section() {
    bool terminated = false;
    for (uint64_t off = dynamic_.p_offset; off < dynamic_.p_offset + dynamic_.p_filesz; off += sizeof(Elf64_Dyn)) {
      const auto d = at<Elf64_Dyn>(off);
      if (d.d_tag == DT_NULL) {
        terminated = true;
        break;
      }
      // The generic tags, GNU's and the processor's; anything else is a damaged tag, which
      // ld.so would skip and so miss a table.
      const uint64_t tag = d.d_tag;
      const bool known = tag < DT_NUM || (tag >= DT_VALRNGLO && tag <= DT_ADDRRNGHI) || tag == DT_VERSYM ||
                         (tag >= DT_RELACOUNT && tag <= DT_VERNEEDNUM) || (tag >= DT_LOPROC && tag <= DT_HIPROC);
      if (!known) fail("has a bad dynamic section: unknown entry {:#x}", tag);
      // ld.so keeps the last of repeated entries; only needed libraries come several times.
      if (d.d_tag != DT_NEEDED && value(d.d_tag)) fail("has a bad dynamic section: entry {:#x} is repeated", tag);
      entries_.push_back(d);
    }
    if (!terminated) fail("has a bad dynamic section: no DT_NULL ends it");
    const std::optional<uint64_t> strtab_addr = value(DT_STRTAB), strsz = value(DT_STRSZ);
    if (!strtab_addr || !strsz || !value(DT_SYMTAB)) fail("has a bad dynamic section: no string or symbol table");
    strtab_ = table("string table", *strtab_addr, *strsz);
    strsz_ = *strsz;
    if (value(DT_SYMENT).value_or(sizeof(Elf64_Sym)) != sizeof(Elf64_Sym) ||
        value(DT_RELAENT).value_or(sizeof(Elf64_Rela)) != sizeof(Elf64_Rela) ||
        value(DT_PLTREL).value_or(DT_RELA) != DT_RELA || value(DT_REL)) {
      fail("has a bad dynamic section: a symbol or relocation entry size or kind this machine does not use");
    }
    for (const Elf64_Dyn& d : entries_) {
      switch (d.d_tag) {
        case DT_NEEDED:
          string_at(d.d_un.d_val, "needed library");
          break;
        case DT_SONAME:
          string_at(d.d_un.d_val, "library");
          break;
        case DT_RPATH:
        case DT_RUNPATH:
          string_at(d.d_un.d_val, "search path");
          break;
        case DT_INIT:
        case DT_FINI:
          if (!mapped(d.d_un.d_ptr, 1, PF_X)) {
            fail("has a bad dynamic section: a start or end function at {:#x}, outside its code", d.d_un.d_ptr);
          }
          break;
        case DT_PLTGOT:
          if (!mapped(d.d_un.d_ptr, 1)) fail("has a bad dynamic section: an address ({:#x}) outside it", d.d_un.d_ptr);
          break;
        default:
          break;
      }
    }
    hashed_symbols();
    packed_relocations(sized_table("packed relocations", DT_RELR, DT_RELRSZ), value(DT_RELRSZ).value_or(0));
    const uint64_t relative = value(DT_RELACOUNT).value_or(0);
    if (relative > value(DT_RELASZ).value_or(0) / sizeof(Elf64_Rela)) {
      fail("has a bad dynamic section: {} relative relocations, more than it holds", relative);
    }
    relocations("relocations", sized_table("relocations", DT_RELA, DT_RELASZ), value(DT_RELASZ).value_or(0), relative);
    relocations("PLT relocations", sized_table("PLT relocations", DT_JMPREL, DT_PLTRELSZ),
                value(DT_PLTRELSZ).value_or(0), 0);
    start_functions("start functions", DT_INIT_ARRAY, DT_INIT_ARRAYSZ);
    start_functions("end functions", DT_FINI_ARRAY, DT_FINI_ARRAYSZ);
    start_functions("pre-start functions", DT_PREINIT_ARRAY, DT_PREINIT_ARRAYSZ);
    const uint64_t symtab = table("symbol table", *value(DT_SYMTAB), symbol_count_ * sizeof(Elf64_Sym));
    for (uint64_t i = 0; i < symbol_count_; ++i)
      string_at(at<Elf64_Sym>(symtab + i * sizeof(Elf64_Sym)).st_name, "symbol");
    uint64_t highest_version = 1;  // VER_NDX_GLOBAL
    if (const std::optional<uint64_t> verneed = value(DT_VERNEED)) {
      version_needs(table("version needs", *verneed, sizeof(Elf64_Verneed)), &highest_version);
    }
    if (const std::optional<uint64_t> verdef = value(DT_VERDEF)) {
      version_definitions(table("version definitions", *verdef, sizeof(Elf64_Verdef)), &highest_version);
    }
    // ld.so reads the symbols' versions wherever there are version records.
    if ((value(DT_VERNEED) || value(DT_VERDEF)) && !value(DT_VERSYM)) {
      fail("has a bad dynamic section: version records without the symbols' versions");
    }
    if (const std::optional<uint64_t> versym = value(DT_VERSYM)) {
      const uint64_t offset = table("symbol versions", *versym, symbol_count_ * sizeof(Elf64_Half));
      for (uint64_t i = 0; i < symbol_count_; ++i) {
        if ((at<Elf64_Half>(offset + i * sizeof(Elf64_Half)) & 0x7fff) > highest_version) {
          fail("has a bad dynamic section: symbol {} has a version that is not recorded", i);
        }
      }
    }
  }

  // The symbols the hash table ld.so looks names up in covers (those the relocations name
  // may lie past them: a library that exports nothing hashes no symbol).
  void hashed_symbols() {
    if (const std::optional<uint64_t> hash = value(DT_HASH)) {
      symbol_count_ = at<Elf64_Word>(table("symbol hash table", *hash, 2 * sizeof(Elf64_Word)) + sizeof(Elf64_Word));
    } else if (const std::optional<uint64_t> gnu_hash = value(DT_GNU_HASH)) {
      const uint64_t header = table("GNU hash table", *gnu_hash, 4 * sizeof(Elf64_Word));
      const uint64_t buckets = at<Elf64_Word>(header), first = at<Elf64_Word>(header + 4);
      const uint64_t bloom_words = at<Elf64_Word>(header + 8);
      if (buckets == 0 || bloom_words == 0 || (bloom_words & (bloom_words - 1)) != 0) {
        fail("has a bad GNU hash table ({} buckets, {} bloom words)", buckets, bloom_words);
      }
      const uint64_t bucket_addr = *gnu_hash + 16 + bloom_words * sizeof(Elf64_Xword);
      const uint64_t bucket_table = table("GNU hash buckets", bucket_addr, buckets * sizeof(Elf64_Word));
      uint64_t last = 0;
      for (uint64_t b = 0; b < buckets; ++b) last = std::max<uint64_t>(last, at<Elf64_Word>(bucket_table + 4 * b));
      symbol_count_ = first;
      if (last >= first) {
        // The chain of the last bucket ends at the last symbol, marked by its low bit.
        const uint64_t chains = bucket_addr + buckets * sizeof(Elf64_Word) - first * sizeof(Elf64_Word);
        for (uint64_t i = last;; ++i) {
          const std::optional<uint64_t> entry = file_offset(chains + i * sizeof(Elf64_Word), sizeof(Elf64_Word));
          if (!entry) fail("has a bad GNU hash table: a chain runs past the file");
          if (at<Elf64_Word>(*entry) & 1) {
            symbol_count_ = i + 1;
            break;
          }
        }
      }
    } else {
      fail("has a bad dynamic section: no symbol hash table");
    }
  }

  // The file offset of a table the dynamic section points to, which must lie in the file.
  uint64_t table(const char* name, uint64_t vaddr, uint64_t length) const {
    const std::optional<uint64_t> offset = file_offset(vaddr, length);
    if (!offset) fail("has a bad dynamic section: its {} ({} bytes at {:#x}) is outside the file", name, length, vaddr);
    return *offset;
  }

  void string_at(uint64_t index, const char* use) const {
    if (index >= strsz_ || std::memchr(image_.data() + strtab_ + index, '\0', strsz_ - index) == nullptr) {
      fail("has a bad dynamic section: a {} name (at {}) lies outside its string table ({} bytes)", use, index, strsz_);
    }
  }

  // Each relocation writes inside the library's own writable memory (any of it, for a
  // library with text relocations, which ld.so makes writable), and the first `relative` are
  // of the relative kind, as the dynamic section says; the symbols they name are counted.
  void relocations(const char* name, std::optional<uint64_t> offset, uint64_t size, uint64_t relative) {
    if (!offset) return;
    const bool text_relocations = value(DT_TEXTREL) || (value(DT_FLAGS).value_or(0) & DF_TEXTREL);
    for (uint64_t i = 0; i < size / sizeof(Elf64_Rela); ++i) {
      const auto rela = at<Elf64_Rela>(*offset + i * sizeof(Elf64_Rela));
      if (!mapped(rela.r_offset, sizeof(uint64_t), text_relocations ? 0 : PF_W) ||
          (i < relative && ELF64_R_TYPE(rela.r_info) != kRelativeRelocation)) {
        fail("has a bad dynamic section: {} {} (at {:#x}, symbol {}, kind {}) is damaged", name, i, rela.r_offset,
             ELF64_R_SYM(rela.r_info), ELF64_R_TYPE(rela.r_info));
      }
      symbol_count_ = std::max<uint64_t>(symbol_count_, ELF64_R_SYM(rela.r_info) + 1);
      relocated_[rela.r_offset] = rela;
    }
  }

  // Relative relocations packed as addresses and bitmaps (DT_RELR), each of which adds
  // the load address to the word it names.
  void packed_relocations(std::optional<uint64_t> offset, uint64_t size) {
    if (!offset) return;
    const auto relocate = [&](uint64_t where) {
      if (!mapped(where, sizeof(Elf64_Addr), PF_W)) {
        fail("has a bad dynamic section: a packed relocation writes at {:#x}, outside its writable memory", where);
      }
      const std::optional<uint64_t> stored = file_offset(where, sizeof(Elf64_Addr));
      Elf64_Rela rela{where, ELF64_R_INFO(0, kRelativeRelocation), 0};
      if (stored) rela.r_addend = at<Elf64_Addr>(*stored);
      relocated_[where] = rela;
    };
    uint64_t next = 0;  // the word the next bitmap starts at
    for (uint64_t i = 0; i < size / sizeof(Elf64_Addr); ++i) {
      uint64_t entry = at<Elf64_Addr>(*offset + i * sizeof(Elf64_Addr));
      if ((entry & 1) == 0) {
        relocate(entry);
        next = entry + sizeof(Elf64_Addr);
        continue;
      }
      for (uint64_t bit = 0; (entry >>= 1) != 0; ++bit) {
        if (entry & 1) relocate(next + bit * sizeof(Elf64_Addr));
      }
      next += 63 * sizeof(Elf64_Addr);
    }
  }

  // The function pointers ld.so calls as the library loads or unloads: each slot of the
  // array a relocation fills, a relative one with an address in the library's code.
  void start_functions(const char* name, int64_t addr_tag, int64_t size_tag) const {
    const std::optional<uint64_t> addr = value(addr_tag), size = value(size_tag);
    if (!addr && !size) return;
    if (!addr || !size || !mapped(*addr, *size, PF_W)) fail("has a bad dynamic section: its {} table", name);
    for (uint64_t slot = 0; slot < *size / sizeof(Elf64_Addr); ++slot) {
      const auto it = relocated_.find(*addr + slot * sizeof(Elf64_Addr));
      if (it == relocated_.end() ||
          (ELF64_R_TYPE(it->second.r_info) == kRelativeRelocation && !mapped(it->second.r_addend, 1, PF_X))) {
        fail("has a bad dynamic section: entry {} of its {} does not point into its code", slot, name);
      }
    }
  }

  // The chains of version records, which ld.so follows to their last link (vn_next or
  // vd_next 0) and trusts (a broken one fails its assertions); the highest version index
  // they give bounds the symbols' versions.
  void version_needs(uint64_t offset, uint64_t* highest) const {
    for (int i = 0;; ++i) {
      if (!inside(offset, sizeof(Elf64_Verneed), image_.size())) fail("has a bad version record {}", i);
      const auto need = at<Elf64_Verneed>(offset);
      if (need.vn_version != VER_NEED_CURRENT) fail("has a bad version record {}", i);
      string_at(need.vn_file, "versioned library");
      for (uint64_t aux = offset + need.vn_aux;;) {
        if (!inside(aux, sizeof(Elf64_Vernaux), image_.size())) fail("has a bad version record {}", i);
        const auto entry = at<Elf64_Vernaux>(aux);
        string_at(entry.vna_name, "version");
        *highest = std::max<uint64_t>(*highest, entry.vna_other & 0x7fff);
        if (entry.vna_next == 0) break;
        aux += entry.vna_next;
      }
      if (need.vn_next == 0) return;
      offset += need.vn_next;
    }
  }

  void version_definitions(uint64_t offset, uint64_t* highest) const {
    for (int i = 0;; ++i) {
      if (!inside(offset, sizeof(Elf64_Verdef), image_.size())) fail("has a bad version definition {}", i);
      const auto def = at<Elf64_Verdef>(offset);
      if (def.vd_version != VER_DEF_CURRENT) fail("has a bad version definition {}", i);
      const uint64_t aux = offset + def.vd_aux;
      if (!inside(aux, sizeof(Elf64_Verdaux), image_.size())) fail("has a bad version definition {}", i);
      string_at(at<Elf64_Verdaux>(aux).vda_name, "version");
      *highest = std::max<uint64_t>(*highest, def.vd_ndx & 0x7fff);
      if (def.vd_next == 0) return;
      offset += def.vd_next;
    }
  }

  const std::string& image_;
  const std::string& what_;
  Elf64_Ehdr header_{};
  std::vector<Elf64_Phdr> loads_;
  Elf64_Phdr dynamic_{};
  std::vector<Elf64_Dyn> entries_;
  uint64_t strtab_ = 0, strsz_ = 0;  // the string table's file offset and size
  uint64_t symbol_count_ = 0;
  std::map<uint64_t, Elf64_Rela> relocated_;  // by the address each relocation writes
};

}  // namespace

void check_elf_shared_object(const std::string& image, const std::string& what) { ElfCheck(image, what).run(); }

}  // namespace nee
