// CUDA graphs as gpumux's libcudart keeps them (docs/cuda-programs.md,
// "Graphs and stream capture"): nodes with their parameters and dependency
// edges, and the structural rules of the graph API (dependency checks,
// cloning, the order a launch runs nodes in, which graphs an executable graph
// can be updated from, DOT output). Running a graph is graph_launch.cpp's.
// Errors are thrown as CudaError (state.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "gpumux/cudart/graph_abi.h"
#include "gpumux/cudart/user_objects.h"

namespace gpumux::cudart {

struct KernelEntry;

// A graph owned by a node (a child graph, a conditional body): copying the
// node clones it.
class OwnedGraph {
 public:
  OwnedGraph();  // an empty graph
  explicit OwnedGraph(const CUgraph_st& g);  // a clone of g
  OwnedGraph(const OwnedGraph& o);
  OwnedGraph& operator=(const OwnedGraph& o);
  OwnedGraph(OwnedGraph&&) noexcept;
  OwnedGraph& operator=(OwnedGraph&&) noexcept;
  ~OwnedGraph();
  CUgraph_st* get() const { return g_.get(); }

 private:
  std::unique_ptr<CUgraph_st> g_;
};

// A kernel node: the launch, with a copy of each argument's bytes.
struct KernelParams {
  KernelEntry* kernel = nullptr;
  const void* func = nullptr;  // as the program named it (returned by GetParams)
  std::string name;            // for DOT output
  dim3 grid{}, block{};
  unsigned smem = 0;
  bool cooperative = false;  // cudaLaunchCooperativeKernel captured
  std::vector<std::vector<uint8_t>> args;
  std::vector<void*> arg_pointers;  // into args, refreshed for cudaGraphKernelNodeGetParams
};
struct EventParams {  // event record and event wait nodes
  cudaEvent_t event;
};
// A memory allocation node: the block is allocated when the node is created
// (its address is fixed then, as CUDA promises) and freed when the last node
// or graph holding it goes (`memory`'s deleter).
struct AllocParams {
  std::shared_ptr<void> memory;
  size_t bytes;
};
struct FreeParams {
  void* dptr;
};
struct ConditionalParams {
  cudaGraphConditionalHandle handle;
  cudaGraphConditionalNodeType type;
  std::vector<OwnedGraph> bodies;
  std::vector<cudaGraph_t> body_handles;  // the array phGraph_out points to
};
using NodeParams = std::variant<std::monostate, KernelParams, cudaMemcpy3DParms, cudaMemsetParams,
                                cudaHostNodeParams, OwnedGraph, EventParams, AllocParams, FreeParams,
                                ConditionalParams>;

// A conditional handle (cudaGraphConditionalHandleCreate): its value lives in
// device memory at `address` (the handle itself), where the device built-in
// cudaGraphSetConditional writes it.
struct ConditionalHandle {
  uint64_t address;
  unsigned default_value;
  bool assign_default;  // cudaGraphCondAssignDefault: reset at every launch
  std::shared_ptr<void> memory;
};

}  // namespace gpumux::cudart

struct CUgraphNode_st {
  CUgraph_st* graph;
  cudaGraphNodeType type;
  gpumux::cudart::NodeParams params;
  std::vector<CUgraphNode_st*> deps;        // incoming edges, in the order added
  std::vector<CUgraphNode_st*> dependents;  // outgoing edges
  // The nodes this one was cloned from (instantiation, cudaGraphClone) or
  // updated with (cudaGraphExecUpdate): how exec-node calls find it.
  std::vector<const CUgraphNode_st*> origins;
  bool enabled = true;  // cudaGraphNodeSetEnabled (executable graphs)
};

struct CUgraph_st {
  std::vector<std::unique_ptr<CUgraphNode_st>> nodes;  // in creation order
  std::vector<gpumux::cudart::ConditionalHandle> conditionals;
  gpumux::cudart::UserObjectRefs user_objects;  // cudaGraphRetainUserObject
};

struct CUgraphExec_st {
  std::unique_ptr<CUgraph_st> graph;  // a clone of the instantiated graph
  unsigned long long flags;
};

namespace gpumux::cudart {

// Adds a node depending on `deps` (CudaError InvalidValue if one is null, of
// another graph or given twice).
CUgraphNode_st& add_node(CUgraph_st& g, cudaGraphNodeType type, NodeParams params, const cudaGraphNode_t* deps,
                         size_t num_deps);
// CudaError InvalidValue for an edge that exists already (add), does not (remove),
// a self edge or nodes of another graph.
void add_edge(CUgraph_st& g, CUgraphNode_st* from, CUgraphNode_st* to);
void remove_edge(CUgraph_st& g, CUgraphNode_st* from, CUgraphNode_st* to);
void destroy_node(CUgraphNode_st* node);
std::unique_ptr<CUgraph_st> clone(const CUgraph_st& g);
// The node of `copy` (a clone, or an executable graph's graph) made from `original`, or null.
CUgraphNode_st* find_clone(const CUgraph_st& copy, const CUgraphNode_st* original);
// Nodes in an order where each follows its dependencies, ties in creation
// order (deterministic). CudaError InvalidValue if the graph has a cycle.
std::vector<CUgraphNode_st*> launch_order(const CUgraph_st& g);

// Whether `exec`'s graph can take the parameters of `g` (cudaGraphExecUpdate's
// rules: nodes paired in creation order, same edges and types; kernels may
// change function; 1D memsets only; memcpy keeps its array/linear sides; alloc and
// free nodes cannot change). On success, update() copies the parameters.
struct UpdateCheck {
  cudaGraphExecUpdateResult result = cudaGraphExecUpdateSuccess;
  const CUgraphNode_st* node = nullptr;       // of g
  const CUgraphNode_st* from_node = nullptr;  // of exec's graph
};
UpdateCheck check_update(const CUgraph_st& exec, const CUgraph_st& g);
void update(CUgraph_st& exec, const CUgraph_st& g);

// A DOT description of the graph (cudaGraphDebugDotPrint).
std::string dot(const CUgraph_st& g);
const char* node_type_name(cudaGraphNodeType t);

}  // namespace gpumux::cudart

namespace gpumux::cudart {

// Running graphs (graph_launch.cpp).
// Runs the executable graph's nodes in `stream`, in launch_order(), through
// the session's operations like the entry points that enqueue the same work.
void launch_graph(const CUgraphExec_st& exec, cudaStream_t stream);
// A block for a memory allocation node; the graph owns it until its last node goes.
AllocParams allocate_for_graph(size_t bytes);
// Whether `p` is a block of allocate_for_graph (cudaFree leaves it to its graph).
bool is_graph_allocation(const void* p);
ConditionalHandle create_conditional(unsigned default_value, bool assign_default);

}  // namespace gpumux::cudart
