#include "gpumux/cudart/driver/driver_state.h"

#include <cstring>

#include <fmt/format.h>

namespace gpumux::cudart::driver {
namespace {

// Marks a CUdevResource made by this library: the first bytes of its
// internal part are the tag and the index of its SM set.
constexpr uint32_t kResourceTag = 0x676d7852;  // "gmxR"

}  // namespace

Driver& Driver::get() {
  static Driver d;
  return d;
}

void Driver::make_resource(CUdevResource& r, SmSet set, uint32_t min_sms, uint32_t multiple) {
  std::memset(&r, 0, sizeof r);
  r.type = CU_DEV_RESOURCE_TYPE_SM;
  r.sm.smCount = uint32_t(set.sms.size());
  r.sm.minSmPartitionSize = min_sms;
  r.sm.smCoscheduledAlignment = multiple;
  const uint32_t index = uint32_t(sets_.size());
  std::memcpy(r.internal, &kResourceTag, 4);
  std::memcpy(r.internal + 4, &index, 4);
  sets_.push_back(std::move(set));
}

const Driver::SmSet* Driver::sm_set(const CUdevResource& r) const {
  uint32_t tag = 0, index = 0;
  std::memcpy(&tag, r.internal, 4);
  std::memcpy(&index, r.internal + 4, 4);
  if (r.type != CU_DEV_RESOURCE_TYPE_SM || tag != kResourceTag || index >= sets_.size()) return nullptr;
  return &sets_[index];
}

CUresult check_initialized(const char* api) {
  if (Driver::get().initialized) return CUDA_SUCCESS;
  return fail(api, CUDA_ERROR_NOT_INITIALIZED, "cuInit has not been called");
}

CUresult fail(const char* api, CUresult code, const std::string& detail) {
  fmt::print(stderr, "gpumux: {}: {}\n", api, detail);
  return code;
}

int device_attribute(int attr) {
  int v = 0;
  cudaDeviceGetAttribute(&v, attr, 0);
  return v;
}

}  // namespace gpumux::cudart::driver
