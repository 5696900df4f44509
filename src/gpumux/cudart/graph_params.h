// Node parameters between the CUDA structs programs pass and graph.h's
// (checked, arguments copied), for the graph entry points (api_graph*.cpp)
// and stream capture. Errors are thrown as CudaError.
#pragma once

#include "gpumux/cudart/graph.h"

namespace gpumux::cudart {

KernelParams kernel_node(const cudaKernelNodeParams* p);
// The kernel's parameters as CUDA reports them (kernelParams point into `k`).
cudaKernelNodeParams kernel_node_params(KernelParams& k);
cudaMemsetParams memset_node(const cudaMemsetParams* p);
cudaHostNodeParams host_node(const cudaHostNodeParams* p);
EventParams event_node(cudaEvent_t e);
// Allocates the node's block and reports its address in p->dptr.
AllocParams alloc_node(cudaMemAllocNodeParams* p);
// cudaGraphAddNode's parameters for a node of `g`; `adding`: false for
// cudaGraph(Exec)NodeSetParams, which cannot change alloc, free and conditional nodes.
NodeParams node_params(const cudaGraphNodeParams& p, const CUgraph_st& g, bool adding);
// What cudaGraphAddNode returns through its parameters (an alloc node's
// address, a conditional node's bodies).
void report_outputs(CUgraphNode_st& n, cudaGraphNodeParams& p);

}  // namespace gpumux::cudart
