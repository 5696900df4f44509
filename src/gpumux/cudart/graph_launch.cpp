// Graph launches (docs/cuda-programs.md, "Graphs and stream capture"): the
// nodes run one after another in the launch stream, each through the same
// session operation as the entry point that enqueues its work, so a launch is
// ordered with the stream's other work like one operation and runs in-process
// and served alike. The graph's first kernel pays a stream launch's overhead,
// the others frontend.graph_launch_latency.
#include <set>

#include <fmt/format.h>

#include "gpumux/cudart/state.h"

namespace gpumux::cudart {

namespace {

Runtime& rt() { return Runtime::get(); }

std::set<const void*>& graph_allocations() {
  static std::set<const void*> blocks;
  return blocks;
}

struct GraphRun {
  cudaStream_t stream;
  bool kernel_launched = false;
};

void run(const CUgraph_st& g, GraphRun& r);

// A conditional node's value, written by the device (cudaGraphSetConditional)
// or the launch's reset to its default: read once the earlier work is done.
unsigned condition(cudaGraphConditionalHandle h) {
  uint32_t v = 0;
  rt().session().synchronize();
  rt().session().read(h, &v, sizeof v);
  return v;
}

void run_conditional(const ConditionalParams& c, GraphRun& r) {
  switch (c.type) {
    case cudaGraphCondTypeIf:
      if (condition(c.handle))
        run(*c.bodies[0].get(), r);
      else if (c.bodies.size() == 2)
        run(*c.bodies[1].get(), r);
      break;
    case cudaGraphCondTypeWhile:
      while (condition(c.handle)) run(*c.bodies[0].get(), r);
      break;
    case cudaGraphCondTypeSwitch:
      if (unsigned v = condition(c.handle); v < c.bodies.size()) run(*c.bodies[v].get(), r);
      break;
  }
}

void run_node(const CUgraphNode_st& n, GraphRun& r) {
  switch (n.type) {
    case cudaGraphNodeTypeKernel:
      rt().launch(std::get<KernelParams>(n.params), r.stream,
                  r.kernel_launched ? runtime::LaunchPath::GraphNode : runtime::LaunchPath::Stream);
      r.kernel_launched = true;
      break;
    case cudaGraphNodeTypeMemcpy: copy_3d(std::get<cudaMemcpy3DParms>(n.params)); break;
    case cudaGraphNodeTypeMemset: memset_2d(std::get<cudaMemsetParams>(n.params)); break;
    case cudaGraphNodeTypeHost: {
      const auto& h = std::get<cudaHostNodeParams>(n.params);
      rt().session().synchronize();
      h.fn(h.userData);
      break;
    }
    case cudaGraphNodeTypeGraph: run(*std::get<OwnedGraph>(n.params).get(), r); break;
    case cudaGraphNodeTypeEventRecord:
      rt().session().record(std::get<EventParams>(n.params).event->event, Runtime::stream_of(r.stream));
      break;
    case cudaGraphNodeTypeConditional: run_conditional(std::get<ConditionalParams>(n.params), r); break;
    default:  // empty, event wait (the stream runs in order), alloc and free (allocate_for_graph)
      break;
  }
}

void run(const CUgraph_st& g, GraphRun& r) {
  for (const CUgraphNode_st* n : launch_order(g))
    if (n->enabled) run_node(*n, r);
}

// Conditional handles with cudaGraphCondAssignDefault start every launch at their default.
void reset_conditionals(const CUgraph_st& g) {
  for (const ConditionalHandle& h : g.conditionals)
    if (h.assign_default) rt().session().write(h.address, &h.default_value, sizeof(uint32_t));
  for (const auto& n : g.nodes) {
    if (const auto* child = std::get_if<OwnedGraph>(&n->params)) reset_conditionals(*child->get());
    if (const auto* c = std::get_if<ConditionalParams>(&n->params))
      for (const OwnedGraph& b : c->bodies) reset_conditionals(*b.get());
  }
}

// Frees a graph's block; after cudaDeviceReset it is gone already.
void release(void* p) {
  try {
    rt().session().free(reinterpret_cast<runtime::DevPtr>(p));
  } catch (const std::exception&) {
  }
}

}  // namespace

void launch_graph(const CUgraphExec_st& exec, cudaStream_t stream) {
  reset_conditionals(*exec.graph);
  GraphRun r{stream};
  run(*exec.graph, r);
}

AllocParams allocate_for_graph(size_t bytes) {
  auto* p = reinterpret_cast<void*>(rt().session().malloc(bytes ? bytes : 1));
  graph_allocations().insert(p);
  return {std::shared_ptr<void>(p,
                                [](void* q) {
                                  graph_allocations().erase(q);
                                  release(q);
                                }),
          bytes};
}

bool is_graph_allocation(const void* p) { return graph_allocations().count(p) != 0; }

ConditionalHandle create_conditional(unsigned default_value, bool assign_default) {
  runtime::DevPtr p = rt().session().malloc(sizeof(uint32_t));
  rt().session().write(p, &default_value, sizeof(uint32_t));
  return {p, default_value, assign_default,
          std::shared_ptr<void>(reinterpret_cast<void*>(p),
                                release)};
}

}  // namespace gpumux::cudart
