// Executable graphs (docs/cuda-programs.md, "Graphs and stream capture"):
// instantiation, launch, update, per-node parameter changes, and the stream
// capture entry points (capture.h).
#include <fmt/format.h>

#include "gpumux/cudart/capture.h"
#include "gpumux/cudart/graph_params.h"
#include "gpumux/cudart/state.h"

using namespace gpumux::cudart;

namespace {

Runtime& rt() { return Runtime::get(); }

template <class T>
T* out(T* p) {
  if (!p) throw CudaError{cudaErrorInvalidValue, "null result pointer"};
  return p;
}

CUgraphExec_st& exec_of(cudaGraphExec_t e) {
  if (!e) throw CudaError{cudaErrorInvalidValue, "null executable graph"};
  return *e;
}

// The node of the executable graph made from `node` (of the graph it was instantiated or updated from).
CUgraphNode_st& exec_node(cudaGraphExec_t e, cudaGraphNode_t node, cudaGraphNodeType type) {
  CUgraphNode_st* n = find_clone(*exec_of(e).graph, node);
  if (!n) throw CudaError{cudaErrorInvalidValue, "the node is not part of the executable graph"};
  if (n->type != type || node->type != type)
    throw CudaError{cudaErrorInvalidValue, fmt::format("not a {} node", node_type_name(type))};
  return *n;
}

// Instantiation checks the graph (cycles) and copies it: later changes to
// the graph do not reach the executable graph.
CUgraphExec_st* instantiate(cudaGraph_t graph, unsigned long long flags) {
  if (!graph) throw CudaError{cudaErrorInvalidValue, "null graph"};
  launch_order(*graph);
  return new CUgraphExec_st{clone(*graph), flags};
}

}  // namespace

extern "C" {

cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long flags) {
  return rt().call("cudaGraphInstantiate", [&] {
    out(exec);  // before the executable graph exists
    *exec = instantiate(graph, flags);
  });
}
cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long flags) {
  return cudaGraphInstantiateWithFlags(exec, graph, flags);
}
cudaError_t cudaGraphInstantiateWithParams(cudaGraphExec_t* exec, cudaGraph_t graph,
                                           cudaGraphInstantiateParams* params) {
  return rt().call("cudaGraphInstantiateWithParams", [&] {
    out(exec);
    out(params);
    params->errNode_out = nullptr;
    params->result_out = graph ? cudaGraphInstantiateInvalidStructure : cudaGraphInstantiateError;  // if it fails
    *exec = instantiate(graph, params->flags);
    params->result_out = cudaGraphInstantiateSuccess;
  });
}
cudaError_t cudaGraphExecGetFlags(cudaGraphExec_t exec, unsigned long long* flags) {
  return rt().call("cudaGraphExecGetFlags", [&] { *out(flags) = exec_of(exec).flags; });
}
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
  return rt().call("cudaGraphExecDestroy", [&] { delete &exec_of(exec); });
}

// In a capturing stream a graph launch becomes a child graph node.
cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream) {
  return rt().device_call("cudaGraphLaunch", [&] {
    const CUgraphExec_st& e = exec_of(exec);
    if (!Captures::get().capture(stream, cudaGraphNodeTypeGraph, OwnedGraph(*e.graph))) launch_graph(e, stream);
  });
}
// The graph's work is prepared when it is instantiated: an upload has nothing left to do.
cudaError_t cudaGraphUpload(cudaGraphExec_t exec, cudaStream_t) {
  return rt().call("cudaGraphUpload", [&] { exec_of(exec); });
}

cudaError_t cudaGraphExecUpdate(cudaGraphExec_t exec, cudaGraph_t graph, cudaGraphExecUpdateResultInfo* info) {
  return rt().call("cudaGraphExecUpdate", [&] {
    CUgraphExec_st& e = exec_of(exec);
    if (!graph) throw CudaError{cudaErrorInvalidValue, "null graph"};
    UpdateCheck c = check_update(*e.graph, *graph);
    if (info)
      *info = {c.result, const_cast<cudaGraphNode_t>(c.node), const_cast<cudaGraphNode_t>(c.from_node)};
    if (c.result != cudaGraphExecUpdateSuccess)
      throw CudaError{cudaErrorGraphExecUpdateFailure, ""};  // the reason is in `info`, as CUDA reports it
    update(*e.graph, *graph);
  });
}

cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                             const cudaKernelNodeParams* p) {
  return rt().call("cudaGraphExecKernelNodeSetParams",
                   [&] { exec_node(exec, node, cudaGraphNodeTypeKernel).params = kernel_node(p); });
}
cudaError_t cudaGraphExecMemcpyNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                             const cudaMemcpy3DParms* p) {
  return rt().call("cudaGraphExecMemcpyNodeSetParams", [&] {
    exec_node(exec, node, cudaGraphNodeTypeMemcpy).params = *out(const_cast<cudaMemcpy3DParms*>(p));
  });
}
cudaError_t cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t exec, cudaGraphNode_t node, void* dst,
                                               const void* src, size_t count, int kind) {
  return rt().call("cudaGraphExecMemcpyNodeSetParams1D", [&] {
    exec_node(exec, node, cudaGraphNodeTypeMemcpy).params = linear_copy(dst, count, src, count, count, 1, kind);
  });
}
cudaError_t cudaGraphExecMemcpyNodeSetParamsToSymbol(cudaGraphExec_t exec, cudaGraphNode_t node, const void* symbol,
                                                    const void* src, size_t count, size_t offset, int kind) {
  return rt().call("cudaGraphExecMemcpyNodeSetParamsToSymbol", [&] {
    exec_node(exec, node, cudaGraphNodeTypeMemcpy).params = to_symbol(symbol, src, count, offset, kind);
  });
}
cudaError_t cudaGraphExecMemcpyNodeSetParamsFromSymbol(cudaGraphExec_t exec, cudaGraphNode_t node, void* dst,
                                                      const void* symbol, size_t count, size_t offset, int kind) {
  return rt().call("cudaGraphExecMemcpyNodeSetParamsFromSymbol", [&] {
    exec_node(exec, node, cudaGraphNodeTypeMemcpy).params = from_symbol(dst, symbol, count, offset, kind);
  });
}
// Only 1D memsets can change in an executable graph (CUDA's rule).
cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node, const cudaMemsetParams* p) {
  return rt().call("cudaGraphExecMemsetNodeSetParams", [&] {
    CUgraphNode_st& n = exec_node(exec, node, cudaGraphNodeTypeMemset);
    cudaMemsetParams m = memset_node(p);
    if (m.height > 1 || std::get<cudaMemsetParams>(n.params).height > 1)
      throw CudaError{cudaErrorInvalidValue, "only 1D memsets can change in an executable graph"};
    n.params = m;
  });
}
cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node, const cudaHostNodeParams* p) {
  return rt().call("cudaGraphExecHostNodeSetParams",
                   [&] { exec_node(exec, node, cudaGraphNodeTypeHost).params = host_node(p); });
}
cudaError_t cudaGraphExecChildGraphNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node, cudaGraph_t child) {
  return rt().call("cudaGraphExecChildGraphNodeSetParams", [&] {
    CUgraphNode_st& n = exec_node(exec, node, cudaGraphNodeTypeGraph);
    if (!child) throw CudaError{cudaErrorInvalidValue, "null child graph"};
    UpdateCheck c = check_update(*std::get<OwnedGraph>(n.params).get(), *child);
    if (c.result != cudaGraphExecUpdateSuccess)
      throw CudaError{cudaErrorInvalidValue, "the child graph's topology or node types differ"};
    n.params = OwnedGraph(*child);
  });
}
cudaError_t cudaGraphExecEventRecordNodeSetEvent(cudaGraphExec_t exec, cudaGraphNode_t node, cudaEvent_t event) {
  return rt().call("cudaGraphExecEventRecordNodeSetEvent",
                   [&] { exec_node(exec, node, cudaGraphNodeTypeEventRecord).params = event_node(event); });
}
cudaError_t cudaGraphExecEventWaitNodeSetEvent(cudaGraphExec_t exec, cudaGraphNode_t node, cudaEvent_t event) {
  return rt().call("cudaGraphExecEventWaitNodeSetEvent",
                   [&] { exec_node(exec, node, cudaGraphNodeTypeWaitEvent).params = event_node(event); });
}
cudaError_t cudaGraphExecNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node, cudaGraphNodeParams* p) {
  return rt().call("cudaGraphExecNodeSetParams", [&] {
    CUgraphNode_st& n = exec_node(exec, node, out(p)->type);
    n.params = node_params(*p, *n.graph, false);
  });
}
// Disabled nodes do nothing when the graph runs; their dependencies still hold.
cudaError_t cudaGraphNodeSetEnabled(cudaGraphExec_t exec, cudaGraphNode_t node, unsigned int enabled) {
  return rt().call("cudaGraphNodeSetEnabled", [&] {
    if (!node) throw CudaError{cudaErrorInvalidValue, "null graph node"};
    exec_node(exec, node, node->type).enabled = enabled != 0;
  });
}
cudaError_t cudaGraphNodeGetEnabled(cudaGraphExec_t exec, cudaGraphNode_t node, unsigned int* enabled) {
  return rt().call("cudaGraphNodeGetEnabled", [&] {
    if (!node) throw CudaError{cudaErrorInvalidValue, "null graph node"};
    *out(enabled) = exec_node(exec, node, node->type).enabled;
  });
}

// ---- stream capture ----

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode) {
  return rt().call("cudaStreamBeginCapture", [&] { Captures::get().begin(stream, mode, nullptr, nullptr, 0); });
}
cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t stream, cudaGraph_t graph, const cudaGraphNode_t* deps,
                                          const cudaGraphEdgeData*, size_t num_deps, cudaStreamCaptureMode mode) {
  return rt().call("cudaStreamBeginCaptureToGraph", [&] {
    if (!graph) throw CudaError{cudaErrorInvalidValue, "null graph"};
    Captures::get().begin(stream, mode, graph, deps, num_deps);
  });
}
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph) {
  return rt().call("cudaStreamEndCapture", [&] {
    out(graph);
    *graph = nullptr;
    *graph = Captures::get().end(stream);
  });
}
cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus* status) {
  return rt().call("cudaStreamIsCapturing", [&] { *out(status) = Captures::get().info(stream).status; });
}
cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, cudaStreamCaptureStatus* status,
                                     unsigned long long* id, cudaGraph_t* graph, const cudaGraphNode_t** deps,
                                     const cudaGraphEdgeData** edge_data, size_t* num_deps) {
  return rt().call("cudaStreamGetCaptureInfo", [&] {
    Captures::Info i = Captures::get().info(stream);
    *out(status) = i.status;
    if (i.status != cudaStreamCaptureStatusActive) return;  // the other results are undefined
    if (id) *id = i.id;
    if (graph) *graph = i.graph;
    if (deps) *deps = i.deps->data();
    if (edge_data) *edge_data = nullptr;  // all edges are default edges
    if (num_deps) *num_deps = i.deps->size();
  });
}
cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream, cudaGraphNode_t* deps,
                                                const cudaGraphEdgeData*, size_t num_deps, unsigned int flags) {
  return rt().call("cudaStreamUpdateCaptureDependencies",
                   [&] { Captures::get().update_dependencies(stream, deps, num_deps, flags); });
}
cudaError_t cudaThreadExchangeStreamCaptureMode(cudaStreamCaptureMode* mode) {
  return rt().call("cudaThreadExchangeStreamCaptureMode",
                   [&] { *out(mode) = Captures::get().exchange_mode(*out(mode)); });
}

}  // extern "C"
