// Stream-ordered allocation and memory pools (cudaMallocAsync, cudaFreeAsync,
// cudaMemPool*): the pools and their ordering rule are mem_pool.h's. Pools
// hold device memory of device 0, without IPC handles.
#include <fmt/format.h>

#include "gpumux/cudart/state.h"

using gpumux::cudart::CudaError;
using gpumux::cudart::MemPool;
using gpumux::cudart::Runtime;

static_assert(sizeof(cudaMemPoolProps) == 88, "cudaMemPoolProps must have CUDA 13's layout");

namespace {

Runtime& rt() { return Runtime::get(); }

MemPool& pool_of(cudaMemPool_t handle) {
  auto* p = reinterpret_cast<MemPool*>(handle);
  if (!rt().pools().valid(p))
    throw CudaError{cudaErrorInvalidValue, fmt::format("{} is not a memory pool", static_cast<void*>(handle))};
  return *p;
}

cudaMemPool_t handle_of(MemPool& p) { return reinterpret_cast<cudaMemPool_t>(&p); }

void check_device(int device) {
  if (device != 0) throw CudaError{cudaErrorInvalidDevice, fmt::format("device {} (gpumux has device 0 only)", device)};
}

// Pools of pinned device memory on device 0 are the only kind.
void check_location(const cudaMemLocation* location, int type) {
  if (!location) throw CudaError{cudaErrorInvalidValue, "null location"};
  if (location->type != cudaMemLocationTypeDevice || type != cudaMemAllocationTypePinned)
    throw CudaError{cudaErrorNotSupported, fmt::format("memory pools of location type {}, allocation type {}: gpumux "
                                                       "has pools of device memory only", location->type, type)};
  check_device(location->id);
}

void allocate(void** ptr, size_t size, MemPool& pool) {
  if (!ptr) throw CudaError{cudaErrorInvalidValue, "null result pointer"};
  try {
    *ptr = reinterpret_cast<void*>(pool.allocate(rt().session(), size));
  } catch (const gpumux::ApiError& e) {
    throw CudaError{cudaErrorMemoryAllocation, e.what()};
  }
}

}  // namespace

namespace gpumux::cudart {

// cudaFree of pool memory: the block goes back to its pool (mem_pool.h: after
// the device's earlier work, which cudaFree waits for anyway).
bool free_to_pool(runtime::DevPtr p) {
  MemPool* pool = rt().pools().owner(p);
  if (!pool) return false;
  rt().session().synchronize();
  pool->release(p);
  return true;
}

}  // namespace gpumux::cudart

extern "C" {

cudaError_t cudaMallocAsync(void** ptr, size_t size, cudaStream_t) {
  return rt().call("cudaMallocAsync", [&] { allocate(ptr, size, rt().pools().current()); });
}
cudaError_t cudaMallocFromPoolAsync(void** ptr, size_t size, cudaMemPool_t pool, cudaStream_t) {
  return rt().call("cudaMallocFromPoolAsync", [&] { allocate(ptr, size, pool_of(pool)); });
}
// Memory of cudaMalloc may be freed here too (a synchronous free).
cudaError_t cudaFreeAsync(void* ptr, cudaStream_t) {
  return rt().device_call("cudaFreeAsync", [&] {
    if (!ptr) return;
    const auto p = reinterpret_cast<gpumux::runtime::DevPtr>(ptr);
    if (gpumux::cudart::free_to_pool(p)) return;
    rt().session().synchronize();
    rt().managed().remove(p);
    rt().session().free(p);
  });
}

cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t* pool, int device) {
  return rt().call("cudaDeviceGetDefaultMemPool", [&] {
    check_device(device);
    if (!pool) throw CudaError{cudaErrorInvalidValue, "null result pointer"};
    *pool = handle_of(rt().pools().default_pool());
  });
}
cudaError_t cudaDeviceGetMemPool(cudaMemPool_t* pool, int device) {
  return rt().call("cudaDeviceGetMemPool", [&] {
    check_device(device);
    if (!pool) throw CudaError{cudaErrorInvalidValue, "null result pointer"};
    *pool = handle_of(rt().pools().current());
  });
}
cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t pool) {
  return rt().call("cudaDeviceSetMemPool", [&] {
    check_device(device);
    rt().pools().set_current(pool_of(pool));
  });
}
cudaError_t cudaMemGetDefaultMemPool(cudaMemPool_t* pool, cudaMemLocation* location, int type) {
  return rt().call("cudaMemGetDefaultMemPool", [&] {
    check_location(location, type);
    if (!pool) throw CudaError{cudaErrorInvalidValue, "null result pointer"};
    *pool = handle_of(rt().pools().default_pool());
  });
}
cudaError_t cudaMemGetMemPool(cudaMemPool_t* pool, cudaMemLocation* location, int type) {
  return rt().call("cudaMemGetMemPool", [&] {
    check_location(location, type);
    if (!pool) throw CudaError{cudaErrorInvalidValue, "null result pointer"};
    *pool = handle_of(rt().pools().current());
  });
}
cudaError_t cudaMemSetMemPool(cudaMemLocation* location, int type, cudaMemPool_t pool) {
  return rt().call("cudaMemSetMemPool", [&] {
    check_location(location, type);
    rt().pools().set_current(pool_of(pool));
  });
}

cudaError_t cudaMemPoolCreate(cudaMemPool_t* pool, const cudaMemPoolProps* props) {
  return rt().call("cudaMemPoolCreate", [&] {
    if (!pool || !props) throw CudaError{cudaErrorInvalidValue, "null argument"};
    check_location(&props->location, props->allocType);
    if (props->handleTypes != 0)
      throw CudaError{cudaErrorNotSupported, "memory pools with shareable handles (IPC) are not supported"};
    *pool = handle_of(rt().pools().create(props->maxSize));
  });
}
cudaError_t cudaMemPoolDestroy(cudaMemPool_t pool) {
  return rt().call("cudaMemPoolDestroy", [&] {
    MemPool& p = pool_of(pool);
    if (&p == &rt().pools().default_pool())
      throw CudaError{cudaErrorInvalidValue, "the default memory pool cannot be destroyed"};
    rt().pools().destroy(rt().session(), p);
  });
}
cudaError_t cudaMemPoolTrimTo(cudaMemPool_t pool, size_t minBytesToKeep) {
  return rt().call("cudaMemPoolTrimTo", [&] { pool_of(pool).trim(rt().session(), minBytesToKeep); });
}

cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, int attr, void* value) {
  return rt().call("cudaMemPoolSetAttribute", [&] {
    MemPool& p = pool_of(pool);
    if (!value) throw CudaError{cudaErrorInvalidValue, "null value"};
    const int flag = attr <= cudaMemPoolReuseAllowInternalDependencies ? *static_cast<int*>(value) : 0;
    const uint64_t bytes = attr > cudaMemPoolReuseAllowInternalDependencies ? *static_cast<uint64_t*>(value) : 0;
    switch (attr) {
      case cudaMemPoolReuseFollowEventDependencies: p.reuse_follow_event = flag; break;
      case cudaMemPoolReuseAllowOpportunistic: p.reuse_opportunistic = flag; break;
      case cudaMemPoolReuseAllowInternalDependencies: p.reuse_internal = flag; break;
      case cudaMemPoolAttrReleaseThreshold: p.release_threshold = bytes; break;
      case cudaMemPoolAttrReservedMemHigh:
      case cudaMemPoolAttrUsedMemHigh:
        if (bytes != 0) throw CudaError{cudaErrorInvalidValue, "a high watermark can only be reset, to 0"};
        if (attr == cudaMemPoolAttrReservedMemHigh) p.reset_reserved_high();
        else p.reset_used_high();
        break;
      default: throw CudaError{cudaErrorInvalidValue, fmt::format("memory pool attribute {} cannot be set", attr)};
    }
  });
}
cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, int attr, void* value) {
  return rt().call("cudaMemPoolGetAttribute", [&] {
    MemPool& p = pool_of(pool);
    if (!value) throw CudaError{cudaErrorInvalidValue, "null value"};
    auto set_int = [&](int v) { *static_cast<int*>(value) = v; };
    auto set_bytes = [&](uint64_t v) { *static_cast<uint64_t*>(value) = v; };
    switch (attr) {
      case cudaMemPoolReuseFollowEventDependencies: set_int(p.reuse_follow_event); break;
      case cudaMemPoolReuseAllowOpportunistic: set_int(p.reuse_opportunistic); break;
      case cudaMemPoolReuseAllowInternalDependencies: set_int(p.reuse_internal); break;
      case cudaMemPoolAttrReleaseThreshold: set_bytes(p.release_threshold); break;
      case cudaMemPoolAttrReservedMemCurrent: set_bytes(p.reserved()); break;
      case cudaMemPoolAttrReservedMemHigh: set_bytes(p.reserved_high()); break;
      case cudaMemPoolAttrUsedMemCurrent: set_bytes(p.used()); break;
      case cudaMemPoolAttrUsedMemHigh: set_bytes(p.used_high()); break;
      default: throw CudaError{cudaErrorInvalidValue, fmt::format("{} is not a memory pool attribute", attr)};
    }
  });
}

// One device: pool memory is accessible, read and write, from device 0 only.
cudaError_t cudaMemPoolSetAccess(cudaMemPool_t pool, const cudaMemAccessDesc* descs, size_t count) {
  return rt().call("cudaMemPoolSetAccess", [&] {
    pool_of(pool);
    if (count && !descs) throw CudaError{cudaErrorInvalidValue, "null access descriptors"};
    for (size_t i = 0; i < count; ++i) {
      check_location(&descs[i].location, cudaMemAllocationTypePinned);
      if (descs[i].flags != cudaMemAccessFlagsProtReadWrite)
        throw CudaError{cudaErrorInvalidValue, "the owning device's access to its pool is read and write"};
    }
  });
}
cudaError_t cudaMemPoolGetAccess(int* flags, cudaMemPool_t pool, cudaMemLocation* location) {
  return rt().call("cudaMemPoolGetAccess", [&] {
    pool_of(pool);
    if (!flags) throw CudaError{cudaErrorInvalidValue, "null result pointer"};
    check_location(location, cudaMemAllocationTypePinned);
    *flags = cudaMemAccessFlagsProtReadWrite;
  });
}

}  // extern "C"
