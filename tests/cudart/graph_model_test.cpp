// The graph model of gpumux's libcudart (cudart/graph.h): dependency checks,
// the order a launch runs nodes in, clones, and the rules of
// cudaGraphExecUpdate, without a CUDA program.
#include "gpumux/cudart/graph.h"

#include <gtest/gtest.h>

#include <functional>

#include "gpumux/cudart/state.h"

namespace gpumux::cudart {
namespace {

CUgraphNode_st* add(CUgraph_st& g, std::vector<CUgraphNode_st*> deps = {},
                    cudaGraphNodeType type = cudaGraphNodeTypeEmpty, NodeParams p = {}) {
  return &add_node(g, type, std::move(p), deps.data(), deps.size());
}

cudaMemsetParams memset_1d(unsigned value, size_t height = 1) { return {nullptr, 64, value, 1, 16, height}; }

cudaError_t error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const CudaError& e) {
    return e.code;
  }
  return cudaSuccess;
}

TEST(CudartGraphModel, LaunchOrderFollowsDependenciesThenCreationOrder) {
  CUgraph_st g;
  auto* late_root = add(g);
  auto* a = add(g);
  auto* b = add(g, {a});
  auto* c = add(g, {a});
  auto* d = add(g, {c, b});
  add_edge(g, d, late_root);  // the first node created now runs last
  std::vector<CUgraphNode_st*> want = {a, b, c, d, late_root};
  EXPECT_EQ(launch_order(g), want);
}

TEST(CudartGraphModel, CyclesAndBadEdgesAreInvalidValues) {
  CUgraph_st g, other;
  auto* a = add(g);
  auto* b = add(g, {a});
  auto* foreign = add(other);
  EXPECT_EQ(error_of([&] { add_edge(g, a, b); }), cudaErrorInvalidValue);  // exists
  EXPECT_EQ(error_of([&] { add_edge(g, a, a); }), cudaErrorInvalidValue);
  EXPECT_EQ(error_of([&] { add_edge(g, a, foreign); }), cudaErrorInvalidValue);
  EXPECT_EQ(error_of([&] { remove_edge(g, b, a); }), cudaErrorInvalidValue);
  EXPECT_EQ(error_of([&] { add(g, {a, a}); }), cudaErrorInvalidValue);
  EXPECT_EQ(error_of([&] { add(g, {foreign}); }), cudaErrorInvalidValue);
  add_edge(g, b, a);
  EXPECT_EQ(error_of([&] { launch_order(g); }), cudaErrorInvalidValue);
  remove_edge(g, b, a);
  EXPECT_EQ(launch_order(g).size(), 2u);
}

TEST(CudartGraphModel, DestroyingANodeRemovesItsEdges) {
  CUgraph_st g;
  auto* a = add(g);
  auto* b = add(g, {a});
  auto* c = add(g, {b});
  destroy_node(b);
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_TRUE(a->dependents.empty());
  EXPECT_TRUE(c->deps.empty());
}

TEST(CudartGraphModel, ClonesCopyNodesEdgesAndChildGraphs) {
  CUgraph_st g;
  auto* a = add(g, {}, cudaGraphNodeTypeMemset, memset_1d(7));
  CUgraph_st child;
  add(child);
  auto* b = add(g, {a}, cudaGraphNodeTypeGraph, OwnedGraph(child));
  auto c = clone(g);
  ASSERT_EQ(c->nodes.size(), 2u);
  CUgraphNode_st* a2 = find_clone(*c, a);
  CUgraphNode_st* b2 = find_clone(*c, b);
  ASSERT_TRUE(a2 && b2);
  EXPECT_EQ(b2->deps, std::vector<CUgraphNode_st*>{a2});
  EXPECT_EQ(std::get<cudaMemsetParams>(a2->params).value, 7u);
  // The child graph is a copy, not shared.
  EXPECT_NE(std::get<OwnedGraph>(b2->params).get(), std::get<OwnedGraph>(b->params).get());
  EXPECT_EQ(std::get<OwnedGraph>(b2->params).get()->nodes.size(), 1u);
  EXPECT_EQ(find_clone(*c, b2), nullptr);
}

TEST(CudartGraphModel, ExecUpdateNeedsTheSameTopologyAndTypes) {
  CUgraph_st g;
  auto* a = add(g, {}, cudaGraphNodeTypeMemset, memset_1d(1));
  add(g, {a});
  auto exec = clone(g);

  auto same = clone(g);
  std::get<cudaMemsetParams>(same->nodes[0]->params).value = 9;
  EXPECT_EQ(check_update(*exec, *same).result, cudaGraphExecUpdateSuccess);
  update(*exec, *same);
  EXPECT_EQ(std::get<cudaMemsetParams>(exec->nodes[0]->params).value, 9u);
  EXPECT_EQ(find_clone(*exec, same->nodes[0].get()), exec->nodes[0].get());  // reachable by the new node too
  EXPECT_EQ(find_clone(*exec, a), exec->nodes[0].get());

  auto more = clone(g);
  add(*more);
  EXPECT_EQ(check_update(*exec, *more).result, cudaGraphExecUpdateErrorTopologyChanged);

  auto rewired = clone(g);
  remove_edge(*rewired, rewired->nodes[0].get(), rewired->nodes[1].get());
  UpdateCheck r = check_update(*exec, *rewired);
  EXPECT_EQ(r.result, cudaGraphExecUpdateErrorTopologyChanged);
  EXPECT_EQ(r.node, rewired->nodes[1].get());
  EXPECT_EQ(r.from_node, exec->nodes[1].get());

  CUgraph_st retyped;
  auto* x = add(retyped, {}, cudaGraphNodeTypeMemset, memset_1d(1));
  add(retyped, {x}, cudaGraphNodeTypeHost, cudaHostNodeParams{nullptr, nullptr});
  EXPECT_EQ(check_update(*exec, retyped).result, cudaGraphExecUpdateErrorNodeTypeChanged);
}

TEST(CudartGraphModel, OnlyOneDimensionalMemsetsChangeInAnExecutableGraph) {
  CUgraph_st g;
  add(g, {}, cudaGraphNodeTypeMemset, memset_1d(1, 4));
  auto exec = clone(g);
  auto changed = clone(g);
  std::get<cudaMemsetParams>(changed->nodes[0]->params).value = 2;
  EXPECT_EQ(check_update(*exec, *changed).result, cudaGraphExecUpdateErrorParametersChanged);
  EXPECT_EQ(check_update(*exec, *clone(g)).result, cudaGraphExecUpdateSuccess);  // unchanged 2D is fine
}

TEST(CudartGraphModel, DotNamesNodesAndEdges) {
  CUgraph_st g;
  auto* a = add(g, {}, cudaGraphNodeTypeMemset, memset_1d(1));
  add(g, {a});
  std::string d = dot(g);
  EXPECT_NE(d.find("digraph"), std::string::npos);
  EXPECT_NE(d.find("memset 16 x 1 x 1 B"), std::string::npos);
  EXPECT_NE(d.find("\"0\" -> \"1\""), std::string::npos);
}

}  // namespace
}  // namespace gpumux::cudart
