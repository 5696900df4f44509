// The user-object entry points (user_objects.h holds the model).
#include "gpumux/cudart/graph.h"
#include "gpumux/cudart/state.h"

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
    gpumux::cudart::retain_user_object(object_of(object), count);
  });
}
cudaError_t cudaUserObjectRelease(cudaUserObject_t object, unsigned int count) {
  return Runtime::get().call("cudaUserObjectRelease", [&] {
    positive(count);
    gpumux::cudart::release_user_object(object_of(object), count);
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
