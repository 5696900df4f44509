// Consistency checks of an SM's resource accounting under a sharing policy,
// run by the dispatcher after every TB placement when
// frontend.check_invariants is set (usage only grows at placement, so that is
// when a limit can be broken). Each throws std::logic_error naming the SM and
// what is wrong.
//
// What the SM exposes through const methods bounds what can be checked:
//  - register file and shared memory: used <= capacity, and the largest free
//    range <= capacity - used (overlapping ranges would count used twice and
//    leave more free than capacity - used). The allocated ranges themselves
//    are private, so an overlap that leaves no large hole goes unseen;
//  - resident TBs <= TB slots;
//  - warps and threads in use are private: they are checked as the sum over
//    the given kernels of resident TBs x per-TB needs, which also must match
//    the register and shared memory in use exactly, and every resident TB
//    must belong to one of the kernels;
//  - with exclusive_sms(), at most one of the kernels has TBs on the SM;
//  - a kernel of a green context has TBs only on its SMs.
// The overload without kernels checks only the first two items.
#pragma once

#include <span>

#include "gpumux/frontend/sharing_policy.h"
#include "gpumux/sm/sm.h"

namespace gpumux::frontend {

void check_sm_invariants(const sm::Sm& s, const SharingPolicy& p);
// `kernels`: every kernel that may have TBs resident on s (the active kernels).
void check_sm_invariants(const sm::Sm& s, const SharingPolicy& p, std::span<const ActiveKernel> kernels);

}  // namespace gpumux::frontend
