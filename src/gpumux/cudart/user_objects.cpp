#include "gpumux/cudart/user_objects.h"

#include <fmt/format.h>

#include "gpumux/cudart/state.h"

namespace gpumux::cudart {

void retain_user_object(CUuserObject_st& o, unsigned count) { o.refs += count; }

void release_user_object(CUuserObject_st& o, unsigned count) {
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
  for (auto& [o, n] : refs_) retain_user_object(*o, n);
}

// A graph's references are part of each object's count, so releasing them
// cannot underflow unless the program released references it did not own.
UserObjectRefs::~UserObjectRefs() {
  for (auto& [o, n] : refs_)
    if (n <= o->refs) release_user_object(*o, n);
}

void UserObjectRefs::add(CUuserObject_st& o, unsigned count, bool move) {
  if (!move) retain_user_object(o, count);
  refs_[&o] += count;
}

void UserObjectRefs::drop(CUuserObject_st& o, unsigned count) {
  auto it = refs_.find(&o);
  const unsigned owned = it == refs_.end() ? 0 : it->second;
  if (count > owned)
    throw CudaError{cudaErrorInvalidValue,
                    fmt::format("the graph owns {} references of the user object, not {}", owned, count)};
  if ((it->second -= count) == 0) refs_.erase(it);
  release_user_object(o, count);
}

}  // namespace gpumux::cudart
