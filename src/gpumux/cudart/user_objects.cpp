#include "gpumux/cudart/user_objects.h"

#include <fmt/format.h>

#include "gpumux/cudart/graph.h"
#include "gpumux/cudart/state.h"

namespace gpumux::cudart {

void retain(CUuserObject_st& o, unsigned count) { o.refs += count; }

void release(CUuserObject_st& o, unsigned count) {
  if (count > o.refs)
    throw CudaError{cudaErrorInvalidValue, fmt::format("release of {} references of a user object that has {}",
                                                       count, o.refs)};
  o.refs -= count;
  if (o.refs == 0) {
    o.destroy(o.ptr);
    delete &o;
  }
}

UserObjectRefs::UserObjectRefs(const UserObjectRefs& other) : refs_(other.refs_) {
  for (auto& [o, n] : refs_) retain(*o, n);
}

// A graph's references are part of each object's count, so releasing them
// cannot underflow unless the program released references it did not own.
UserObjectRefs::~UserObjectRefs() {
  for (auto& [o, n] : refs_)
    if (n <= o->refs) release(*o, n);
}

void UserObjectRefs::add(CUuserObject_st& o, unsigned count, bool move) {
  if (!move) retain(o, count);
  refs_[&o] += count;
}

void UserObjectRefs::drop(CUuserObject_st& o, unsigned count) {
  auto it = refs_.find(&o);
  const unsigned owned = it == refs_.end() ? 0 : it->second;
  if (count > owned)
    throw CudaError{cudaErrorInvalidValue,
                    fmt::format("the graph owns {} references of the user object, not {}", owned, count)};
  if ((it->second -= count) == 0) refs_.erase(it);
  release(o, count);
}

}  // namespace gpumux::cudart

using gpumux::cudart::CudaError;
using gpumux::cudart::Runtime;

namespace {

CUuserObject_st& object_of(cudaUserObject_t o) {
  if (!o) throw CudaError{cudaErrorInvalidValue, "null user object"};
  return *o;
}
CUgraph_st& graph_of(cudaGraph_t g) {
  if (!g) throw CudaError{cudaErrorInvalidValue, "null graph"};
  return *g;
}
void positive(unsigned count) {
  if (count == 0) throw CudaError{cudaErrorInvalidValue, "a count of 0 references"};
}

}  // namespace

extern "C" {

cudaError_t cudaUserObjectCreate(cudaUserObject_t* object_out, void* ptr, cudaHostFn_t destroy,
                                 unsigned int initialRefcount, unsigned int flags) {
  return Runtime::get().call("cudaUserObjectCreate", [&] {
    if (!object_out || !destroy) throw CudaError{cudaErrorInvalidValue, "null result pointer or destructor"};
    if (flags != cudaUserObjectNoDestructorSync)
      throw CudaError{cudaErrorInvalidValue, "flags must be cudaUserObjectNoDestructorSync"};
    positive(initialRefcount);
    *object_out = new CUuserObject_st{ptr, destroy, initialRefcount};
  });
}
cudaError_t cudaUserObjectRetain(cudaUserObject_t object, unsigned int count) {
  return Runtime::get().call("cudaUserObjectRetain", [&] {
    positive(count);
    gpumux::cudart::retain(object_of(object), count);
  });
}
cudaError_t cudaUserObjectRelease(cudaUserObject_t object, unsigned int count) {
  return Runtime::get().call("cudaUserObjectRelease", [&] {
    positive(count);
    gpumux::cudart::release(object_of(object), count);
  });
}
cudaError_t cudaGraphRetainUserObject(cudaGraph_t graph, cudaUserObject_t object, unsigned int count,
                                      unsigned int flags) {
  return Runtime::get().call("cudaGraphRetainUserObject", [&] {
    positive(count);
    if (flags & ~unsigned(cudaGraphUserObjectMove)) throw CudaError{cudaErrorInvalidValue, "unknown flags"};
    graph_of(graph).user_objects.add(object_of(object), count, flags & cudaGraphUserObjectMove);
  });
}
cudaError_t cudaGraphReleaseUserObject(cudaGraph_t graph, cudaUserObject_t object, unsigned int count) {
  return Runtime::get().call("cudaGraphReleaseUserObject", [&] {
    positive(count);
    graph_of(graph).user_objects.drop(object_of(object), count);
  });
}

}  // extern "C"
