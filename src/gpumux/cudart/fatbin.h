// The PTX inside the fat binary nvcc embeds in a program and registers with
// __cudaRegisterFatBinary. Layout (learned from public descriptions of the
// format): a wrapper {magic 0x466243B1, version, pointer to the fat binary};
// the fat binary is a 16-byte header {magic 0xBA55ED50, version 1, header
// size 16, u64 size of the entries} followed by entries, each a header
// {u16 kind (1 PTX, 2 ELF/SASS), u16, u32 header size, u64 payload size
// (padded), u32 compressed size, ..., u32 SM arch at +28, u64 flags at +40,
// u64 uncompressed size at +56} and its payload. nvcc 13 compresses payloads
// with zstd by default (flag 0x8000); older nvcc used an LZ4-like format
// (flag 0x2000), which gpumux does not read. With relocatable device code
// (-rdc=true) the wrapper has version 2: its own fat binary is the
// device-linked one (empty when only PTX is built) and its second field
// points to a null-terminated array of the linked objects' fat binaries.
#pragma once

#include <cstdint>
#include <string>

namespace gpumux::cudart {

// The PTX text of the registered module (the entry of the highest SM arch,
// the one a GPU would JIT). For -rdc=true, the PTX of the one object besides
// NVIDIA's device runtime library; several objects are refused (no device link). Throws LoadError explaining what the fat binary
// holds instead (SASS only, an unreadable compression, a bad layout).
std::string ptx_from_fatbin(const void* wrapper);

}  // namespace gpumux::cudart
