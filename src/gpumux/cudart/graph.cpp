#include "gpumux/cudart/graph.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <queue>

#include <fmt/format.h>

#include "gpumux/cudart/state.h"

namespace gpumux::cudart {

OwnedGraph::OwnedGraph() : g_(std::make_unique<CUgraph_st>()) {}
OwnedGraph::OwnedGraph(const CUgraph_st& g) : g_(clone(g)) {}
OwnedGraph::OwnedGraph(const OwnedGraph& o) : g_(clone(*o.g_)) {}
OwnedGraph& OwnedGraph::operator=(const OwnedGraph& o) {
  if (this != &o) g_ = clone(*o.g_);
  return *this;
}
OwnedGraph::OwnedGraph(OwnedGraph&&) noexcept = default;
OwnedGraph& OwnedGraph::operator=(OwnedGraph&&) noexcept = default;
OwnedGraph::~OwnedGraph() = default;

namespace {

[[noreturn]] void invalid(const std::string& why) { throw CudaError{cudaErrorInvalidValue, why}; }

void check_member(const CUgraph_st& g, const CUgraphNode_st* n) {
  if (!n) invalid("null graph node");
  if (n->graph != &g) invalid("a node of another graph");
}

size_t index_of(const CUgraph_st& g, const CUgraphNode_st* n) {
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (g.nodes[i].get() == n) return i;
  invalid("a node of another graph");
}

bool has(const std::vector<CUgraphNode_st*>& v, const CUgraphNode_st* n) {
  return std::find(v.begin(), v.end(), n) != v.end();
}

void remove_one(std::vector<CUgraphNode_st*>& v, const CUgraphNode_st* n) { v.erase(std::find(v.begin(), v.end(), n)); }

}  // namespace

CUgraphNode_st& add_node(CUgraph_st& g, cudaGraphNodeType type, NodeParams params, const cudaGraphNode_t* deps,
                         size_t num_deps) {
  if (num_deps && !deps) invalid("null dependency array");
  for (size_t i = 0; i < num_deps; ++i) {
    check_member(g, deps[i]);
    if (std::find(deps, deps + i, deps[i]) != deps + i) invalid("a dependency is given twice");
  }
  auto node = std::make_unique<CUgraphNode_st>(CUgraphNode_st{&g, type, std::move(params), {}, {}, {}, true});
  for (size_t i = 0; i < num_deps; ++i) {
    node->deps.push_back(deps[i]);
    deps[i]->dependents.push_back(node.get());
  }
  g.nodes.push_back(std::move(node));
  return *g.nodes.back();
}

void add_edge(CUgraph_st& g, CUgraphNode_st* from, CUgraphNode_st* to) {
  check_member(g, from);
  check_member(g, to);
  if (from == to) invalid("a node cannot depend on itself");
  if (has(to->deps, from)) invalid("the dependency exists already");
  to->deps.push_back(from);
  from->dependents.push_back(to);
}

void remove_edge(CUgraph_st& g, CUgraphNode_st* from, CUgraphNode_st* to) {
  check_member(g, from);
  check_member(g, to);
  if (!has(to->deps, from)) invalid("no such dependency");
  remove_one(to->deps, from);
  remove_one(from->dependents, to);
}

void destroy_node(CUgraphNode_st* node) {
  if (!node) invalid("null graph node");
  for (CUgraphNode_st* d : node->deps) remove_one(d->dependents, node);
  for (CUgraphNode_st* d : node->dependents) remove_one(d->deps, node);
  auto& nodes = node->graph->nodes;
  nodes.erase(std::find_if(nodes.begin(), nodes.end(), [&](const auto& n) { return n.get() == node; }));
}

std::unique_ptr<CUgraph_st> clone(const CUgraph_st& g) {
  auto c = std::make_unique<CUgraph_st>(CUgraph_st{{}, g.conditionals, g.user_objects});
  std::map<const CUgraphNode_st*, CUgraphNode_st*> copy_of;
  for (const auto& n : g.nodes) {
    auto m = std::make_unique<CUgraphNode_st>(*n);
    m->graph = c.get();
    m->deps.clear();
    m->dependents.clear();
    m->origins = {n.get()};
    if (auto* cond = std::get_if<ConditionalParams>(&m->params)) {
      cond->body_handles.clear();
      for (const OwnedGraph& b : cond->bodies) cond->body_handles.push_back(b.get());
    }
    copy_of[n.get()] = m.get();
    c->nodes.push_back(std::move(m));
  }
  for (const auto& n : g.nodes)
    for (const CUgraphNode_st* d : n->deps) {
      copy_of[n.get()]->deps.push_back(copy_of[d]);
      copy_of[d]->dependents.push_back(copy_of[n.get()]);
    }
  return c;
}

CUgraphNode_st* find_clone(const CUgraph_st& copy, const CUgraphNode_st* original) {
  for (const auto& n : copy.nodes)
    if (std::find(n->origins.begin(), n->origins.end(), original) != n->origins.end()) return n.get();
  return nullptr;
}

std::vector<CUgraphNode_st*> launch_order(const CUgraph_st& g) {
  std::map<const CUgraphNode_st*, size_t> index, waiting;  // creation index; unfinished dependencies
  std::priority_queue<size_t, std::vector<size_t>, std::greater<>> ready;  // by creation index
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    index[g.nodes[i].get()] = i;
    waiting[g.nodes[i].get()] = g.nodes[i]->deps.size();
    if (g.nodes[i]->deps.empty()) ready.push(i);
  }
  std::vector<CUgraphNode_st*> order;
  while (!ready.empty()) {
    CUgraphNode_st* n = g.nodes[ready.top()].get();
    ready.pop();
    order.push_back(n);
    for (const CUgraphNode_st* d : n->dependents)
      if (--waiting[d] == 0) ready.push(index[d]);
  }
  if (order.size() != g.nodes.size()) invalid("the graph has a dependency cycle");
  return order;
}

namespace {

bool same_bytes(const auto& a, const auto& b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Why `now` cannot replace `was` in an executable graph (Success if it can).
cudaGraphExecUpdateResult node_update(const CUgraphNode_st& was, const CUgraphNode_st& now) {
  if (was.type != now.type) return cudaGraphExecUpdateErrorNodeTypeChanged;
  switch (now.type) {
    case cudaGraphNodeTypeMemset: {
      const auto& a = std::get<cudaMemsetParams>(was.params);
      const auto& b = std::get<cudaMemsetParams>(now.params);
      if ((a.height > 1 || b.height > 1) && !same_bytes(a, b)) return cudaGraphExecUpdateErrorParametersChanged;
      return cudaGraphExecUpdateSuccess;
    }
    case cudaGraphNodeTypeMemcpy: {
      const auto& a = std::get<cudaMemcpy3DParms>(was.params);
      const auto& b = std::get<cudaMemcpy3DParms>(now.params);
      if (!a.srcArray != !b.srcArray || !a.dstArray != !b.dstArray) return cudaGraphExecUpdateErrorParametersChanged;
      return cudaGraphExecUpdateSuccess;
    }
    case cudaGraphNodeTypeMemAlloc:
      return std::get<AllocParams>(was.params).memory == std::get<AllocParams>(now.params).memory
                 ? cudaGraphExecUpdateSuccess
                 : cudaGraphExecUpdateErrorNotSupported;
    case cudaGraphNodeTypeMemFree:
      return std::get<FreeParams>(was.params).dptr == std::get<FreeParams>(now.params).dptr
                 ? cudaGraphExecUpdateSuccess
                 : cudaGraphExecUpdateErrorNotSupported;
    case cudaGraphNodeTypeGraph:
      return check_update(*std::get<OwnedGraph>(was.params).get(), *std::get<OwnedGraph>(now.params).get()).result;
    case cudaGraphNodeTypeConditional: {
      const auto& a = std::get<ConditionalParams>(was.params);
      const auto& b = std::get<ConditionalParams>(now.params);
      if (a.type != b.type || a.bodies.size() != b.bodies.size()) return cudaGraphExecUpdateErrorParametersChanged;
      for (size_t i = 0; i < a.bodies.size(); ++i)
        if (auto r = check_update(*a.bodies[i].get(), *b.bodies[i].get()).result) return r;
      return cudaGraphExecUpdateSuccess;
    }
    default:
      return cudaGraphExecUpdateSuccess;
  }
}

}  // namespace

UpdateCheck check_update(const CUgraph_st& exec, const CUgraph_st& g) {
  if (exec.nodes.size() != g.nodes.size()) return {cudaGraphExecUpdateErrorTopologyChanged, nullptr, nullptr};
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const CUgraphNode_st& was = *exec.nodes[i];
    const CUgraphNode_st& now = *g.nodes[i];
    bool same_deps = was.deps.size() == now.deps.size();
    for (size_t d = 0; same_deps && d < now.deps.size(); ++d)
      same_deps = index_of(exec, was.deps[d]) == index_of(g, now.deps[d]);
    if (!same_deps) return {cudaGraphExecUpdateErrorTopologyChanged, &now, &was};
    if (auto r = node_update(was, now)) return {r, &now, &was};
  }
  return {};
}

void update(CUgraph_st& exec, const CUgraph_st& g) {
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    CUgraphNode_st& was = *exec.nodes[i];
    was.params = g.nodes[i]->params;
    if (auto* cond = std::get_if<ConditionalParams>(&was.params)) {
      cond->body_handles.clear();
      for (const OwnedGraph& b : cond->bodies) cond->body_handles.push_back(b.get());
    }
    was.origins.push_back(g.nodes[i].get());
  }
  exec.conditionals = g.conditionals;
}

const char* node_type_name(cudaGraphNodeType t) {
  switch (t) {
    case cudaGraphNodeTypeKernel: return "kernel";
    case cudaGraphNodeTypeMemcpy: return "memcpy";
    case cudaGraphNodeTypeMemset: return "memset";
    case cudaGraphNodeTypeHost: return "host";
    case cudaGraphNodeTypeGraph: return "child graph";
    case cudaGraphNodeTypeEmpty: return "empty";
    case cudaGraphNodeTypeWaitEvent: return "event wait";
    case cudaGraphNodeTypeEventRecord: return "event record";
    case cudaGraphNodeTypeMemAlloc: return "mem alloc";
    case cudaGraphNodeTypeMemFree: return "mem free";
    case cudaGraphNodeTypeConditional: return "conditional";
    default: return "unsupported";
  }
}

namespace {

std::string node_label(const CUgraphNode_st& n) {
  if (const auto* k = std::get_if<KernelParams>(&n.params))
    return fmt::format("kernel {}\\ngrid ({},{},{}) block ({},{},{})", k->name, k->grid.x, k->grid.y, k->grid.z,
                       k->block.x, k->block.y, k->block.z);
  if (const auto* m = std::get_if<cudaMemsetParams>(&n.params))
    return fmt::format("memset {} x {} x {} B", m->width, m->height, m->elementSize);
  if (const auto* c = std::get_if<cudaMemcpy3DParms>(&n.params))
    return fmt::format("memcpy {} x {} x {} B", c->extent.width, c->extent.height, c->extent.depth);
  if (const auto* a = std::get_if<AllocParams>(&n.params)) return fmt::format("mem alloc {} B", a->bytes);
  return node_type_name(n.type);
}

// Clusters for child graphs and conditional bodies; node names are unique via `prefix`.
void dot_body(const CUgraph_st& g, const std::string& prefix, std::string& out) {
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const CUgraphNode_st& n = *g.nodes[i];
    out += fmt::format("  \"{}{}\" [label=\"{}\"];\n", prefix, i, node_label(n));
    std::vector<const CUgraph_st*> inner;
    if (const auto* child = std::get_if<OwnedGraph>(&n.params)) inner.push_back(child->get());
    if (const auto* cond = std::get_if<ConditionalParams>(&n.params))
      for (const OwnedGraph& b : cond->bodies) inner.push_back(b.get());
    for (size_t b = 0; b < inner.size(); ++b) {
      std::string p = fmt::format("{}{}.{}.", prefix, i, b);
      out += fmt::format("  subgraph \"cluster_{}\" {{\n  label=\"{}{} body {}\";\n", p, prefix, i, b);
      dot_body(*inner[b], p, out);
      out += "  }\n";
    }
  }
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (const CUgraphNode_st* d : g.nodes[i]->deps)
      out += fmt::format("  \"{}{}\" -> \"{}{}\";\n", prefix, index_of(g, d), prefix, i);
}

}  // namespace

std::string dot(const CUgraph_st& g) {
  std::string out = "digraph cuda_graph {\n";
  dot_body(g, "", out);
  return out + "}\n";
}

}  // namespace gpumux::cudart
