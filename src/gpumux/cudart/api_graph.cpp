// Graph construction entry points (docs/cuda-programs.md, "Graphs and stream
// capture"): graphs, nodes of every supported type, their parameters and
// dependencies, clones and DOT output. The graph model is graph.h's.
#include <algorithm>
#include <cstdio>
#include <functional>

#include <fmt/format.h>

#include "gpumux/cudart/graph_params.h"
#include "gpumux/cudart/state.h"

using namespace gpumux::cudart;

namespace {

Runtime& rt() { return Runtime::get(); }

CUgraph_st& graph_of(cudaGraph_t g) {
  if (!g) throw CudaError{cudaErrorInvalidValue, "null graph"};
  return *g;
}

CUuserObject_st& object_of(cudaUserObject_t o) {
  if (!o) throw CudaError{cudaErrorInvalidValue, "null user object"};
  return *o;
}
void positive(unsigned count) {
  if (count == 0) throw CudaError{cudaErrorInvalidValue, "a count of 0 references"};
}

CUgraphNode_st& node_of(cudaGraphNode_t n, cudaGraphNodeType type) {
  if (!n) throw CudaError{cudaErrorInvalidValue, "null graph node"};
  if (n->type != type)
    throw CudaError{cudaErrorInvalidValue,
                    fmt::format("a {} node, not a {} node", node_type_name(n->type), node_type_name(type))};
  return *n;
}

template <class T>
T* out(T* p) {
  if (!p) throw CudaError{cudaErrorInvalidValue, "null result pointer"};
  return p;
}

// Adds a node; `make` builds its parameters (and may throw) before the graph changes.
cudaError_t add(const char* api, cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps,
                size_t num_deps, cudaGraphNodeType type, const std::function<NodeParams()>& make) {
  return rt().call(api, [&] {
    out(node);
    CUgraph_st& g = graph_of(graph);
    *node = &add_node(g, type, make(), deps, num_deps);
  });
}

// A node's parameters of type T, as they are, into *p.
template <class T>
cudaError_t get_params(const char* api, cudaGraphNode_t node, cudaGraphNodeType type, T* p) {
  return rt().call(api, [&] { *out(p) = std::get<T>(node_of(node, type).params); });
}

// Replaces a node's parameters by what `make` builds (and checks).
cudaError_t set_params(const char* api, cudaGraphNode_t node, cudaGraphNodeType type,
                       const std::function<NodeParams()>& make) {
  return rt().call(api, [&] {
    CUgraphNode_st& n = node_of(node, type);
    n.params = make();
  });
}

// The graph API's "array and count" results: with a null array the count;
// else up to *count entries (the rest null) and the number written.
template <class T>
void list(const std::vector<T>& items, T* array, size_t* count) {
  out(count);
  if (!array) {
    *count = items.size();
    return;
  }
  for (size_t i = 0; i < *count; ++i) array[i] = i < items.size() ? items[i] : T{};
  *count = std::min(*count, items.size());
}

void zero_edge_data(cudaGraphEdgeData* data, size_t n) {
  for (size_t i = 0; data && i < n; ++i) data[i] = {};
}

}  // namespace

extern "C" {

cudaError_t cudaGraphCreate(cudaGraph_t* graph, unsigned int flags) {
  return rt().call("cudaGraphCreate", [&] {
    if (flags) throw CudaError{cudaErrorInvalidValue, "graph flags must be 0"};
    out(graph);
    *graph = new CUgraph_st();
  });
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  return rt().call("cudaGraphDestroy", [&] { delete &graph_of(graph); });
}

cudaError_t cudaGraphClone(cudaGraph_t* clone_out, cudaGraph_t original) {
  return rt().call("cudaGraphClone", [&] {
    out(clone_out);
    *clone_out = clone(graph_of(original)).release();
  });
}

cudaError_t cudaGraphNodeFindInClone(cudaGraphNode_t* node, cudaGraphNode_t original, cudaGraph_t cloned) {
  return rt().call("cudaGraphNodeFindInClone", [&] {
    *out(node) = find_clone(graph_of(cloned), original);
    if (!*node) throw CudaError{cudaErrorInvalidValue, "the node has no copy in that graph"};
  });
}

cudaError_t cudaGraphDebugDotPrint(cudaGraph_t graph, const char* path, unsigned int) {
  return rt().call("cudaGraphDebugDotPrint", [&] {
    std::string text = dot(graph_of(graph));
    std::FILE* f = path ? std::fopen(path, "w") : nullptr;
    if (!f) throw CudaError{cudaErrorInvalidValue, fmt::format("cannot write {}", path ? path : "(null)")};
    bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
    if (std::fclose(f) != 0 || !ok) throw CudaError{cudaErrorUnknown, fmt::format("cannot write {}", path)};
  });
}

// ---- nodes ----

cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps,
                                   size_t num_deps, const cudaKernelNodeParams* p) {
  return add("cudaGraphAddKernelNode", node, graph, deps, num_deps, cudaGraphNodeTypeKernel,
             [&] { return NodeParams(kernel_node(p)); });
}
cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps,
                                   size_t num_deps, const cudaMemcpy3DParms* p) {
  return add("cudaGraphAddMemcpyNode", node, graph, deps, num_deps, cudaGraphNodeTypeMemcpy,
             [&] { return NodeParams(*out(const_cast<cudaMemcpy3DParms*>(p))); });
}
cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps,
                                     size_t num_deps, void* dst, const void* src, size_t count, int kind) {
  return add("cudaGraphAddMemcpyNode1D", node, graph, deps, num_deps, cudaGraphNodeTypeMemcpy,
             [&] { return NodeParams(linear_copy(dst, count, src, count, count, 1, kind)); });
}
cudaError_t cudaGraphAddMemcpyNodeToSymbol(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps,
                                           size_t num_deps, const void* symbol, const void* src, size_t count,
                                           size_t offset, int kind) {
  return add("cudaGraphAddMemcpyNodeToSymbol", node, graph, deps, num_deps, cudaGraphNodeTypeMemcpy,
             [&] { return NodeParams(to_symbol(symbol, src, count, offset, kind)); });
}
cudaError_t cudaGraphAddMemcpyNodeFromSymbol(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps,
                                             size_t num_deps, void* dst, const void* symbol, size_t count,
                                             size_t offset, int kind) {
  return add("cudaGraphAddMemcpyNodeFromSymbol", node, graph, deps, num_deps, cudaGraphNodeTypeMemcpy,
             [&] { return NodeParams(from_symbol(dst, symbol, count, offset, kind)); });
}
cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps,
                                   size_t num_deps, const cudaMemsetParams* p) {
  return add("cudaGraphAddMemsetNode", node, graph, deps, num_deps, cudaGraphNodeTypeMemset,
             [&] { return NodeParams(memset_node(p)); });
}
cudaError_t cudaGraphAddHostNode(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps,
                                 size_t num_deps, const cudaHostNodeParams* p) {
  return add("cudaGraphAddHostNode", node, graph, deps, num_deps, cudaGraphNodeTypeHost,
             [&] { return NodeParams(host_node(p)); });
}
cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps,
                                       size_t num_deps, cudaGraph_t child) {
  return add("cudaGraphAddChildGraphNode", node, graph, deps, num_deps, cudaGraphNodeTypeGraph,
             [&] { return NodeParams(OwnedGraph(graph_of(child))); });
}
cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps,
                                  size_t num_deps) {
  return add("cudaGraphAddEmptyNode", node, graph, deps, num_deps, cudaGraphNodeTypeEmpty,
             [] { return NodeParams(); });
}
cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps,
                                        size_t num_deps, cudaEvent_t event) {
  return add("cudaGraphAddEventRecordNode", node, graph, deps, num_deps, cudaGraphNodeTypeEventRecord,
             [&] { return NodeParams(event_node(event)); });
}
cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps,
                                      size_t num_deps, cudaEvent_t event) {
  return add("cudaGraphAddEventWaitNode", node, graph, deps, num_deps, cudaGraphNodeTypeWaitEvent,
             [&] { return NodeParams(event_node(event)); });
}
cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps,
                                     size_t num_deps, cudaMemAllocNodeParams* p) {
  return add("cudaGraphAddMemAllocNode", node, graph, deps, num_deps, cudaGraphNodeTypeMemAlloc,
             [&] { return NodeParams(alloc_node(out(p))); });
}
cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps,
                                    size_t num_deps, void* dptr) {
  return add("cudaGraphAddMemFreeNode", node, graph, deps, num_deps, cudaGraphNodeTypeMemFree, [&] {
    if (!is_graph_allocation(dptr))
      throw CudaError{cudaErrorInvalidValue, "a free node frees memory of a graph's allocation node"};
    return NodeParams(FreeParams{dptr});
  });
}
cudaError_t cudaGraphAddNode(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps,
                             const cudaGraphEdgeData*, size_t num_deps, cudaGraphNodeParams* p) {
  return rt().call("cudaGraphAddNode", [&] {
    out(node);
    CUgraph_st& g = graph_of(graph);
    NodeParams params = node_params(*out(p), g, true);
    *node = &add_node(g, p->type, std::move(params), deps, num_deps);
    report_outputs(**node, *p);
  });
}

cudaError_t cudaGraphNodeSetParams(cudaGraphNode_t node, cudaGraphNodeParams* p) {
  return rt().call("cudaGraphNodeSetParams", [&] {
    CUgraphNode_st& n = node_of(node, out(p)->type);
    n.params = node_params(*p, *n.graph, false);
    report_outputs(n, *p);
  });
}

cudaError_t cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle* handle, cudaGraph_t graph,
                                             unsigned int default_value, unsigned int flags) {
  return rt().call("cudaGraphConditionalHandleCreate", [&] {
    out(handle);
    CUgraph_st& g = graph_of(graph);
    if (flags & ~cudaGraphCondAssignDefault) throw CudaError{cudaErrorInvalidValue, "unknown flags"};
    g.conditionals.push_back(create_conditional(default_value, flags & cudaGraphCondAssignDefault));
    *handle = g.conditionals.back().address;
  });
}

cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, cudaGraphNodeType* type) {
  return rt().call("cudaGraphNodeGetType", [&] {
    if (!node) throw CudaError{cudaErrorInvalidValue, "null graph node"};
    *out(type) = node->type;
  });
}

cudaError_t cudaGraphDestroyNode(cudaGraphNode_t node) {
  return rt().call("cudaGraphDestroyNode", [&] { destroy_node(node); });
}

// ---- parameters ----

cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node, cudaKernelNodeParams* p) {
  return rt().call("cudaGraphKernelNodeGetParams", [&] {
    auto& k = std::get<KernelParams>(node_of(node, cudaGraphNodeTypeKernel).params);
    *out(p) = kernel_node_params(k);
  });
}
cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node, const cudaKernelNodeParams* p) {
  return set_params("cudaGraphKernelNodeSetParams", node, cudaGraphNodeTypeKernel, [&] { return kernel_node(p); });
}
cudaError_t cudaGraphMemcpyNodeGetParams(cudaGraphNode_t node, cudaMemcpy3DParms* p) {
  return get_params("cudaGraphMemcpyNodeGetParams", node, cudaGraphNodeTypeMemcpy, p);
}
cudaError_t cudaGraphMemcpyNodeSetParams(cudaGraphNode_t node, const cudaMemcpy3DParms* p) {
  return set_params("cudaGraphMemcpyNodeSetParams", node, cudaGraphNodeTypeMemcpy,
                    [&] { return *out(const_cast<cudaMemcpy3DParms*>(p)); });
}
cudaError_t cudaGraphMemcpyNodeSetParams1D(cudaGraphNode_t node, void* dst, const void* src, size_t count,
                                           int kind) {
  return set_params("cudaGraphMemcpyNodeSetParams1D", node, cudaGraphNodeTypeMemcpy,
                    [&] { return linear_copy(dst, count, src, count, count, 1, kind); });
}
cudaError_t cudaGraphMemcpyNodeSetParamsToSymbol(cudaGraphNode_t node, const void* symbol, const void* src,
                                                size_t count, size_t offset, int kind) {
  return set_params("cudaGraphMemcpyNodeSetParamsToSymbol", node, cudaGraphNodeTypeMemcpy,
                    [&] { return to_symbol(symbol, src, count, offset, kind); });
}
cudaError_t cudaGraphMemcpyNodeSetParamsFromSymbol(cudaGraphNode_t node, void* dst, const void* symbol,
                                                  size_t count, size_t offset, int kind) {
  return set_params("cudaGraphMemcpyNodeSetParamsFromSymbol", node, cudaGraphNodeTypeMemcpy,
                    [&] { return from_symbol(dst, symbol, count, offset, kind); });
}
cudaError_t cudaGraphMemsetNodeGetParams(cudaGraphNode_t node, cudaMemsetParams* p) {
  return get_params("cudaGraphMemsetNodeGetParams", node, cudaGraphNodeTypeMemset, p);
}
cudaError_t cudaGraphMemsetNodeSetParams(cudaGraphNode_t node, const cudaMemsetParams* p) {
  return set_params("cudaGraphMemsetNodeSetParams", node, cudaGraphNodeTypeMemset, [&] { return memset_node(p); });
}
cudaError_t cudaGraphHostNodeGetParams(cudaGraphNode_t node, cudaHostNodeParams* p) {
  return get_params("cudaGraphHostNodeGetParams", node, cudaGraphNodeTypeHost, p);
}
cudaError_t cudaGraphHostNodeSetParams(cudaGraphNode_t node, const cudaHostNodeParams* p) {
  return set_params("cudaGraphHostNodeSetParams", node, cudaGraphNodeTypeHost, [&] { return host_node(p); });
}
cudaError_t cudaGraphChildGraphNodeGetGraph(cudaGraphNode_t node, cudaGraph_t* graph) {
  return rt().call("cudaGraphChildGraphNodeGetGraph", [&] {
    *out(graph) = std::get<OwnedGraph>(node_of(node, cudaGraphNodeTypeGraph).params).get();
  });
}
cudaError_t cudaGraphEventRecordNodeGetEvent(cudaGraphNode_t node, cudaEvent_t* event) {
  return rt().call("cudaGraphEventRecordNodeGetEvent", [&] {
    *out(event) = std::get<EventParams>(node_of(node, cudaGraphNodeTypeEventRecord).params).event;
  });
}
cudaError_t cudaGraphEventRecordNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event) {
  return set_params("cudaGraphEventRecordNodeSetEvent", node, cudaGraphNodeTypeEventRecord,
                    [&] { return event_node(event); });
}
cudaError_t cudaGraphEventWaitNodeGetEvent(cudaGraphNode_t node, cudaEvent_t* event) {
  return rt().call("cudaGraphEventWaitNodeGetEvent", [&] {
    *out(event) = std::get<EventParams>(node_of(node, cudaGraphNodeTypeWaitEvent).params).event;
  });
}
cudaError_t cudaGraphEventWaitNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event) {
  return set_params("cudaGraphEventWaitNodeSetEvent", node, cudaGraphNodeTypeWaitEvent,
                    [&] { return event_node(event); });
}
cudaError_t cudaGraphMemAllocNodeGetParams(cudaGraphNode_t node, cudaMemAllocNodeParams* p) {
  return rt().call("cudaGraphMemAllocNodeGetParams", [&] {
    const auto& a = std::get<AllocParams>(node_of(node, cudaGraphNodeTypeMemAlloc).params);
    *out(p) = {};
    p->bytesize = a.bytes;
    p->dptr = a.memory.get();
  });
}
cudaError_t cudaGraphMemFreeNodeGetParams(cudaGraphNode_t node, void* dptr_out) {
  return rt().call("cudaGraphMemFreeNodeGetParams", [&] {
    *out(static_cast<void**>(dptr_out)) = std::get<FreeParams>(node_of(node, cudaGraphNodeTypeMemFree).params).dptr;
  });
}

// ---- structure ----

cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, size_t* count) {
  return rt().call("cudaGraphGetNodes", [&] {
    std::vector<cudaGraphNode_t> all;
    for (const auto& n : graph_of(graph).nodes) all.push_back(n.get());
    list(all, nodes, count);
  });
}
cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, size_t* count) {
  return rt().call("cudaGraphGetRootNodes", [&] {
    std::vector<cudaGraphNode_t> roots;
    for (const auto& n : graph_of(graph).nodes)
      if (n->deps.empty()) roots.push_back(n.get());
    list(roots, nodes, count);
  });
}
cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t* from, cudaGraphNode_t* to,
                              cudaGraphEdgeData* data, size_t* count) {
  return rt().call("cudaGraphGetEdges", [&] {
    std::vector<cudaGraphNode_t> froms, tos;
    for (const auto& n : graph_of(graph).nodes)
      for (CUgraphNode_st* d : n->deps) {
        froms.push_back(d);
        tos.push_back(n.get());
      }
    if (!from != !to) throw CudaError{cudaErrorInvalidValue, "from and to must both be given or both be null"};
    size_t n = *out(count);
    list(froms, from, count);
    list(tos, to, &n);
    zero_edge_data(data, *count);
  });
}
cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t* deps, cudaGraphEdgeData* data,
                                         size_t* count) {
  return rt().call("cudaGraphNodeGetDependencies", [&] {
    if (!node) throw CudaError{cudaErrorInvalidValue, "null graph node"};
    list(node->deps, deps, count);
    zero_edge_data(data, *count);
  });
}
cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t node, cudaGraphNode_t* dependents,
                                           cudaGraphEdgeData* data, size_t* count) {
  return rt().call("cudaGraphNodeGetDependentNodes", [&] {
    if (!node) throw CudaError{cudaErrorInvalidValue, "null graph node"};
    list(node->dependents, dependents, count);
    zero_edge_data(data, *count);
  });
}
cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t* from, const cudaGraphNode_t* to,
                                     const cudaGraphEdgeData*, size_t count) {
  return rt().call("cudaGraphAddDependencies", [&] {
    CUgraph_st& g = graph_of(graph);
    if (count && (!from || !to)) throw CudaError{cudaErrorInvalidValue, "null node array"};
    for (size_t i = 0; i < count; ++i) add_edge(g, from[i], to[i]);
  });
}
cudaError_t cudaGraphRemoveDependencies(cudaGraph_t graph, const cudaGraphNode_t* from, const cudaGraphNode_t* to,
                                        const cudaGraphEdgeData*, size_t count) {
  return rt().call("cudaGraphRemoveDependencies", [&] {
    CUgraph_st& g = graph_of(graph);
    if (count && (!from || !to)) throw CudaError{cudaErrorInvalidValue, "null node array"};
    for (size_t i = 0; i < count; ++i) remove_edge(g, from[i], to[i]);
  });
}

// ---- user objects (user_objects.h) ----
cudaError_t cudaUserObjectCreate(cudaUserObject_t* object_out, void* ptr, cudaHostFn_t destroy,
                                 unsigned int initialRefcount, unsigned int flags) {
  return rt().call("cudaUserObjectCreate", [&] {
    if (!object_out || !destroy) throw CudaError{cudaErrorInvalidValue, "null result pointer or destructor"};
    if (flags != cudaUserObjectNoDestructorSync)
      throw CudaError{cudaErrorInvalidValue, "flags must be cudaUserObjectNoDestructorSync"};
    positive(initialRefcount);
    *object_out = new CUuserObject_st{ptr, destroy, initialRefcount};
  });
}
cudaError_t cudaUserObjectRetain(cudaUserObject_t object, unsigned int count) {
  return rt().call("cudaUserObjectRetain", [&] {
    positive(count);
    gpumux::cudart::retain_user_object(object_of(object), count);
  });
}
cudaError_t cudaUserObjectRelease(cudaUserObject_t object, unsigned int count) {
  return rt().call("cudaUserObjectRelease", [&] {
    positive(count);
    gpumux::cudart::release_user_object(object_of(object), count);
  });
}
cudaError_t cudaGraphRetainUserObject(cudaGraph_t graph, cudaUserObject_t object, unsigned int count,
                                      unsigned int flags) {
  return rt().call("cudaGraphRetainUserObject", [&] {
    positive(count);
    if (flags & ~unsigned(cudaGraphUserObjectMove)) throw CudaError{cudaErrorInvalidValue, "unknown flags"};
    graph_of(graph).user_objects.add(object_of(object), count, flags & cudaGraphUserObjectMove);
  });
}
cudaError_t cudaGraphReleaseUserObject(cudaGraph_t graph, cudaUserObject_t object, unsigned int count) {
  return rt().call("cudaGraphReleaseUserObject", [&] {
    positive(count);
    graph_of(graph).user_objects.drop(object_of(object), count);
  });
}

}  // extern "C"
