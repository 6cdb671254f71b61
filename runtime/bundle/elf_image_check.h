#pragma once
#include <string>

namespace nee {

// Checks, before a byte of it is mapped, that `image` (a file's bytes) is an ELF shared
// object that this machine's dynamic loader can map without reading past it: 64-bit,
// this CPU's byte order and architecture (e_machine), a shared object (ET_DYN), and
// program headers, loaded segments and dynamic section (with the string table, symbol
// table and version records it points to) inside the file. A truncated file or a
// damaged header gets a nee::Error naming `what` and the first problem, where ld.so
// would die of SIGBUS, SIGSEGV or a failed assertion. Damaged code or data inside a
// well-formed file passes: the manifest's hash and the bundle's signature catch those.
void check_elf_shared_object(const std::string& image, const std::string& what);

}  // namespace nee
