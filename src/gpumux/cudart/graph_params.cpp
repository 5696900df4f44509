#include "gpumux/cudart/graph_params.h"

#include <algorithm>

#include <fmt/format.h>

#include "gpumux/cudart/state.h"

namespace gpumux::cudart {

namespace {

template <class T>
const T& given(const T* p) {
  if (!p) throw CudaError{cudaErrorInvalidValue, "null node parameters"};
  return *p;
}

ConditionalParams conditional_node(const cudaConditionalNodeParams& c, const CUgraph_st& g) {
  bool known = std::any_of(g.conditionals.begin(), g.conditionals.end(),
                           [&](const ConditionalHandle& h) { return h.address == c.handle; });
  if (!known) throw CudaError{cudaErrorInvalidValue, "the conditional handle was not created for this graph"};
  bool size_ok = c.type == cudaGraphCondTypeIf       ? c.size == 1 || c.size == 2
                 : c.type == cudaGraphCondTypeWhile  ? c.size == 1
                 : c.type == cudaGraphCondTypeSwitch ? c.size >= 1
                                                     : false;
  if (!size_ok)
    throw CudaError{cudaErrorInvalidValue, fmt::format("conditional type {} with {} bodies", int(c.type), c.size)};
  ConditionalParams p{c.handle, c.type, std::vector<OwnedGraph>(c.size), {}};
  for (const OwnedGraph& b : p.bodies) p.body_handles.push_back(b.get());
  return p;
}

}  // namespace

KernelParams kernel_node(const cudaKernelNodeParams* p) {
  const cudaKernelNodeParams& k = given(p);
  if (k.extra) throw CudaError{cudaErrorNotSupported, "kernel arguments in the \"extra\" format"};
  return Runtime::get().kernel_params(Runtime::get().kernel(k.func), k.gridDim, k.blockDim, k.kernelParams,
                                      k.sharedMemBytes, false);
}

cudaKernelNodeParams kernel_node_params(KernelParams& k) {
  k.arg_pointers.clear();
  for (auto& a : k.args) k.arg_pointers.push_back(a.data());
  return {const_cast<void*>(k.func), k.grid, k.block, k.smem, k.arg_pointers.data(), nullptr};
}

cudaMemsetParams memset_node(const cudaMemsetParams* p) {
  const cudaMemsetParams& m = given(p);
  if (m.elementSize != 1 && m.elementSize != 2 && m.elementSize != 4)
    throw CudaError{cudaErrorInvalidValue, fmt::format("memset element size {} (1, 2 or 4)", m.elementSize)};
  if (m.height > 1 && m.width * m.elementSize > m.pitch)
    throw CudaError{cudaErrorInvalidValue, "memset rows wider than the pitch"};
  return m;
}

cudaHostNodeParams host_node(const cudaHostNodeParams* p) {
  if (!given(p).fn) throw CudaError{cudaErrorInvalidValue, "null host function"};
  return *p;
}

EventParams event_node(cudaEvent_t e) {
  if (!e) throw CudaError{cudaErrorInvalidValue, "null event"};
  return {e};
}

AllocParams alloc_node(cudaMemAllocNodeParams* p) {
  if (!p->bytesize) throw CudaError{cudaErrorInvalidValue, "an allocation node of 0 bytes"};
  AllocParams a = allocate_for_graph(p->bytesize);
  p->dptr = a.memory.get();
  return a;
}

NodeParams node_params(const cudaGraphNodeParams& p, const CUgraph_st& g, bool adding) {
  auto only_when_adding = [&] {
    if (!adding) throw CudaError{cudaErrorInvalidValue, fmt::format("a {} node's parameters cannot change",
                                                                    node_type_name(p.type))};
  };
  switch (p.type) {
    case cudaGraphNodeTypeKernel: return kernel_node(&p.kernel);
    case cudaGraphNodeTypeMemcpy: return p.memcpy.copyParams;
    case cudaGraphNodeTypeMemset: return memset_node(&p.memset);
    case cudaGraphNodeTypeHost: return host_node(&p.host);
    case cudaGraphNodeTypeGraph:
      if (!p.graph.graph) throw CudaError{cudaErrorInvalidValue, "null child graph"};
      if (p.graph.ownership != 0) throw CudaError{cudaErrorNotSupported, "moving a child graph into its node"};
      return OwnedGraph(*p.graph.graph);
    case cudaGraphNodeTypeEmpty: return {};
    case cudaGraphNodeTypeWaitEvent:
    case cudaGraphNodeTypeEventRecord: return event_node(p.event.event);
    case cudaGraphNodeTypeMemAlloc: {
      only_when_adding();
      cudaMemAllocNodeParams a = p.alloc;
      return alloc_node(&a);
    }
    case cudaGraphNodeTypeMemFree:
      only_when_adding();
      if (!is_graph_allocation(p.free.dptr))
        throw CudaError{cudaErrorInvalidValue, "a free node frees memory of a graph's allocation node"};
      return FreeParams{p.free.dptr};
    case cudaGraphNodeTypeConditional: only_when_adding(); return conditional_node(p.conditional, g);
    default:
      throw CudaError{cudaErrorNotSupported, fmt::format("graph node type {} is not supported", int(p.type))};
  }
}

void report_outputs(CUgraphNode_st& n, cudaGraphNodeParams& p) {
  if (auto* a = std::get_if<AllocParams>(&n.params)) p.alloc.dptr = a->memory.get();
  if (auto* c = std::get_if<ConditionalParams>(&n.params)) p.conditional.phGraph_out = c->body_handles.data();
}

}  // namespace gpumux::cudart
