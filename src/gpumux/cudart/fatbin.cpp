#include "gpumux/cudart/fatbin.h"

#include <cstring>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <zstd.h>

#include "gpumux/core/error.h"
#include "gpumux/cudart/cuda_abi.h"

namespace gpumux::cudart {

namespace {

constexpr int32_t kWrapperMagic = 0x466243B1;
constexpr uint32_t kFatbinMagic = 0xBA55ED50;
constexpr uint16_t kKindPtx = 1;
constexpr uint64_t kFlagLz4Compressed = 0x2000;
constexpr uint64_t kFlagZstdCompressed = 0x8000;
constexpr char kRebuildHint[] = "rebuild the program with nvcc -compress-mode=none";

template <class T>
T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

struct Entry {
  uint16_t kind;
  uint32_t arch;
  uint64_t flags;
  const uint8_t* payload;
  uint64_t payload_bytes;     // stored bytes (compressed if compressed)
  uint64_t uncompressed_bytes;
};

std::vector<Entry> entries_of(const uint8_t* fb) {
  if (load<uint32_t>(fb) != kFatbinMagic)
    throw LoadError(fmt::format("fat binary: bad magic 0x{:x} (expected 0x{:x})", load<uint32_t>(fb),
                                kFatbinMagic));
  uint16_t header_bytes = load<uint16_t>(fb + 6);
  uint64_t total = load<uint64_t>(fb + 8);
  std::vector<Entry> out;
  for (uint64_t off = 0; off + 64 <= total;) {
    const uint8_t* e = fb + header_bytes + off;
    uint32_t entry_header = load<uint32_t>(e + 4);
    uint64_t padded = load<uint64_t>(e + 8);
    if (entry_header < 64 || padded > total) throw LoadError("fat binary: malformed entry header");
    uint32_t compressed = load<uint32_t>(e + 16);
    out.push_back({load<uint16_t>(e), load<uint32_t>(e + 28), load<uint64_t>(e + 40), e + entry_header,
                   compressed ? compressed : padded, load<uint64_t>(e + 56)});
    off += entry_header + padded;
  }
  return out;
}

std::string decompress(const Entry& e) {
  if (e.flags & kFlagZstdCompressed) {
    std::string out(e.uncompressed_bytes, '\0');
    size_t n = ZSTD_decompress(out.data(), out.size(), e.payload, e.payload_bytes);
    if (ZSTD_isError(n) || n != e.uncompressed_bytes)
      throw LoadError(fmt::format("fat binary: the zstd-compressed PTX (sm_{}) cannot be decompressed ({}); {}",
                                  e.arch, ZSTD_isError(n) ? ZSTD_getErrorName(n) : "size mismatch",
                                  kRebuildHint));
    out.resize(n);
    return out;
  }
  if (e.flags & kFlagLz4Compressed)
    throw LoadError(fmt::format("fat binary: the PTX (sm_{}) is compressed in the LZ4-like format of older nvcc, "
                                "which gpumux does not read; {}",
                                e.arch, kRebuildHint));
  return std::string(reinterpret_cast<const char*>(e.payload), e.payload_bytes);
}

}  // namespace

namespace {

// The PTX of one fat binary (the entry of the highest SM arch).
std::string ptx_of(const uint8_t* fatbin) {
  std::vector<Entry> entries = entries_of(fatbin);
  const Entry* best = nullptr;
  std::string archs;
  for (const Entry& e : entries) {
    archs += fmt::format("{}{} sm_{}", archs.empty() ? "" : ", ", e.kind == kKindPtx ? "PTX" : "SASS", e.arch);
    if (e.kind == kKindPtx && (!best || e.arch > best->arch)) best = &e;
  }
  if (!best)
    throw LoadError(fmt::format("the fat binary holds no PTX ({}); gpumux runs PTX: build with "
                                "nvcc -cudart shared -arch=compute_80",
                                archs.empty() ? "empty" : archs));
  std::string ptx = decompress(*best);
  // The payload is NUL-padded to its stored size.
  ptx.resize(strnlen(ptx.data(), ptx.size()));
  return ptx;
}

// NVIDIA's device runtime library (libcudadevrt, linked into every -rdc
// program) defines the device-side launch calls that gpumux's built-ins
// implement (exec/builtins/device_launch.cpp); its object is not loaded.
bool is_device_runtime(const std::string& ptx) {
  constexpr std::string_view kName = "__cudaCDP2LaunchDeviceV2";
  for (size_t at = ptx.find(kName); at != std::string::npos; at = ptx.find(kName, at + 1)) {
    const size_t line = ptx.rfind('\n', at) + 1;  // npos + 1 == 0: the first line
    if (std::string_view(ptx).substr(line, at - line).starts_with(".visible .func")) return true;
  }
  return false;
}

}  // namespace

std::string ptx_from_fatbin(const void* wrapper) {
  const auto* w = static_cast<const FatbinWrapper*>(wrapper);
  if (w->magic != kWrapperMagic)
    throw LoadError(fmt::format("fat binary wrapper: bad magic 0x{:x} (expected 0x{:x})", uint32_t(w->magic),
                                uint32_t(kWrapperMagic)));
  if (w->version == 1) return ptx_of(reinterpret_cast<const uint8_t*>(w->data));
  if (w->version != 2) throw LoadError(fmt::format("fat binary wrapper version {} is unknown", w->version));
  // Relocatable device code (nvcc -rdc=true): the device-linked fat binary
  // is empty for a PTX-only build; the PTX is in the fat binaries of the
  // linked objects, a null-terminated array.
  std::vector<std::string> objects;
  for (auto* const* fb = static_cast<const uint8_t* const*>(w->filename_or_fatbins); fb && *fb; ++fb) {
    std::string ptx = ptx_of(*fb);
    if (!is_device_runtime(ptx)) objects.push_back(std::move(ptx));
  }
  if (objects.size() != 1)
    throw LoadError(fmt::format("relocatable device code (nvcc -rdc=true) from {} objects: gpumux loads one PTX "
                                "module per program and does not link device code across objects; put the "
                                "device code in one .cu file",
                                objects.size()));
  return std::move(objects.front());
}

}  // namespace gpumux::cudart
