// CUDA user objects (cudaUserObjectCreate): a host resource with a destructor,
// reference-counted by the program and by the graphs that own references
// (cudaGraphRetainUserObject). Clones and executable graphs hold the
// references of the graph they were made from.
#pragma once

#include <map>

#include "gpumux/cudart/graph_abi.h"

struct CUuserObject_st {
  void* ptr;
  cudaHostFn_t destroy;
  unsigned refs;
};

extern "C" {
using cudaUserObject_t = CUuserObject_st*;
enum : unsigned { cudaUserObjectNoDestructorSync = 0x1 };  // cudaUserObjectFlags
enum : unsigned { cudaGraphUserObjectMove = 0x1 };         // cudaUserObjectRetainFlags
}

namespace gpumux::cudart {

void retain_user_object(CUuserObject_st& o, unsigned count);
// At zero references the destructor runs, on the calling thread (the runtime
// promises no particular thread, and destructors may not call CUDA), and the
// object is freed. CudaError InvalidValue for more references than it has.
void release_user_object(CUuserObject_st& o, unsigned count);

// The references a graph owns.
class UserObjectRefs {
 public:
  UserObjectRefs() = default;
  UserObjectRefs(const UserObjectRefs& other);  // a clone takes the same references
  UserObjectRefs& operator=(const UserObjectRefs&) = delete;
  ~UserObjectRefs();
  // Takes `count` references: new ones, or, when `move`, the caller's.
  void add(CUuserObject_st& o, unsigned count, bool move);
  // CudaError InvalidValue when the graph owns fewer than `count`.
  void drop(CUuserObject_st& o, unsigned count);

 private:
  std::map<CUuserObject_st*, unsigned> refs_;
};

}  // namespace gpumux::cudart
