// CUDA graphs built with the explicit API: a diamond of memset, kernel, memcpy,
// host, empty and event nodes runs in dependency order and relaunches;
// queries (nodes, roots, edges, types, parameters); a clone; per-node updates
// of the executable graph and cudaGraphExecUpdate (parameters change,
// topology must not); a child graph; memory allocation and free nodes; a DOT
// file. Prints "PASS graphs" when every check holds.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "check.h"

constexpr int kN = 1000;

__device__ int symbol_data[4];

__global__ void add(int* a, int n, int v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] += v;
}
__global__ void scale(int* a, int n, int v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] *= v;
}
// c = a + b, which the two branches of the diamond wrote.
__global__ void join(const int* a, const int* b, int* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

struct HostLog {
  int calls = 0;
  int first = -1;  // c[0] as the host node sees it: the copy before it is done
  const int* data = nullptr;
};
void CUDART_CB host_step(void* p) {
  auto* log = static_cast<HostLog*>(p);
  ++log->calls;
  log->first = log->data[0];
}

cudaKernelNodeParams kernel(void* fn, int blocks, void** args) {
  cudaKernelNodeParams k{};
  k.func = fn;
  k.gridDim = dim3(blocks);
  k.blockDim = dim3(256);
  k.kernelParams = args;
  return k;
}

// User objects: the destructor runs once the program's and every graph's
// references (a clone's and an executable graph's included) are released.
int destroyed = 0;
void count_destroy(void* p) { ++*static_cast<int*>(p); }

void user_objects() {
  cudaUserObject_t obj;
  CHECK_CUDA(cudaUserObjectCreate(&obj, &destroyed, count_destroy, 2, cudaUserObjectNoDestructorSync));
  CHECK_ERR(cudaUserObjectCreate(&obj, &destroyed, count_destroy, 1, 0), cudaErrorInvalidValue);
  CHECK_ERR(cudaGetLastError(), cudaErrorInvalidValue);
  cudaGraph_t g, copy;
  CHECK_CUDA(cudaGraphCreate(&g, 0));
  CHECK_CUDA(cudaGraphRetainUserObject(g, obj, 1, cudaGraphUserObjectMove));  // one of the program's
  CHECK_CUDA(cudaGraphRetainUserObject(g, obj, 2, 0));                      // two new ones
  CHECK_ERR(cudaGraphReleaseUserObject(g, obj, 4), cudaErrorInvalidValue);  // the graph owns 3
  CHECK_ERR(cudaGetLastError(), cudaErrorInvalidValue);
  CHECK_CUDA(cudaGraphReleaseUserObject(g, obj, 1));
  cudaGraphNode_t empty;
  CHECK_CUDA(cudaGraphAddEmptyNode(&empty, g, nullptr, 0));
  CHECK_CUDA(cudaGraphClone(&copy, g));
  cudaGraphExec_t exec;
  CHECK_CUDA(cudaGraphInstantiate(&exec, copy, 0));
  CHECK_CUDA(cudaUserObjectRelease(obj, 1));  // the program's last reference
  CHECK_CUDA(cudaGraphDestroy(g));
  CHECK_CUDA(cudaGraphDestroy(copy));
  CHECK_CUDA(cudaGraphLaunch(exec, 0));
  CHECK_CUDA(cudaStreamSynchronize(0));
  CHECK(destroyed == 0);  // the executable graph still holds two
  CHECK_CUDA(cudaGraphExecDestroy(exec));
  CHECK(destroyed == 1);
}

int main() {
  user_objects();
  const int blocks = (kN + 255) / 256;
  int *a, *b, *c;
  CHECK_CUDA(cudaMalloc(&a, kN * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&b, kN * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&c, kN * sizeof(int)));
  std::vector<int> init(kN), out(kN, -1);
  for (int i = 0; i < kN; ++i) init[i] = i;
  HostLog log;
  log.data = out.data();
  cudaEvent_t ev;
  CHECK_CUDA(cudaEventCreate(&ev));

  // copy_in -> {add a, memset b -> add b} -> join -> copy_out -> host; event record and empty on the side.
  cudaGraph_t g;
  CHECK_CUDA(cudaGraphCreate(&g, 0));
  cudaGraphNode_t copy_in, add_a, set_b, add_b, joined, copy_out, host, empty, record;
  CHECK_CUDA(cudaGraphAddMemcpyNode1D(&copy_in, g, nullptr, 0, a, init.data(), kN * sizeof(int),
                                      cudaMemcpyHostToDevice));
  int n = kN, ten = 10, three = 3;
  void* add_a_args[] = {&a, &n, &ten};
  cudaKernelNodeParams add_a_params = kernel((void*)add, blocks, add_a_args);
  CHECK_CUDA(cudaGraphAddKernelNode(&add_a, g, &copy_in, 1, &add_a_params));
  cudaMemsetParams ms{};
  ms.dst = b;
  ms.value = 0x01020304;
  ms.elementSize = 4;
  ms.width = kN;
  ms.height = 1;
  CHECK_CUDA(cudaGraphAddMemsetNode(&set_b, g, nullptr, 0, &ms));
  void* add_b_args[] = {&b, &n, &three};
  cudaKernelNodeParams add_b_params = kernel((void*)add, blocks, add_b_args);
  CHECK_CUDA(cudaGraphAddKernelNode(&add_b, g, &set_b, 1, &add_b_params));
  void* join_args[] = {&a, &b, &c, &n};
  cudaKernelNodeParams join_params = kernel((void*)join, blocks, join_args);
  cudaGraphNode_t both[] = {add_a, add_b};
  CHECK_CUDA(cudaGraphAddKernelNode(&joined, g, both, 2, &join_params));
  CHECK_CUDA(cudaGraphAddMemcpyNode1D(&copy_out, g, &joined, 1, out.data(), c, kN * sizeof(int),
                                      cudaMemcpyDeviceToHost));
  cudaHostNodeParams hp{host_step, &log};
  CHECK_CUDA(cudaGraphAddHostNode(&host, g, &copy_out, 1, &hp));
  CHECK_CUDA(cudaGraphAddEmptyNode(&empty, g, both, 2));
  CHECK_CUDA(cudaGraphAddEventRecordNode(&record, g, &empty, 1, ev));
  CHECK_ERR(cudaGraphAddKernelNode(&add_a, g, both + 1, 1, nullptr), cudaErrorInvalidValue);
  cudaGraphNode_t with_null[] = {add_a, nullptr};
  CHECK_ERR(cudaGraphAddEmptyNode(&empty, g, with_null, 2), cudaErrorInvalidValue);

  // Structure queries.
  size_t count = 0;
  CHECK_CUDA(cudaGraphGetNodes(g, nullptr, &count));
  CHECK(count == 9);
  CHECK_CUDA(cudaGraphGetRootNodes(g, nullptr, &count));
  CHECK(count == 2);
  std::vector<cudaGraphNode_t> roots(count);
  CHECK_CUDA(cudaGraphGetRootNodes(g, roots.data(), &count));
  CHECK(roots[0] == copy_in && roots[1] == set_b);
  CHECK_CUDA(cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &count));
  CHECK(count == 9);
  CHECK_CUDA(cudaGraphNodeGetDependencies(joined, nullptr, nullptr, &count));
  CHECK(count == 2);
  cudaGraphNodeType type;
  CHECK_CUDA(cudaGraphNodeGetType(set_b, &type));
  CHECK(type == cudaGraphNodeTypeMemset);
  CHECK_CUDA(cudaGraphNodeGetType(record, &type));
  CHECK(type == cudaGraphNodeTypeEventRecord);
  cudaKernelNodeParams got{};
  CHECK_CUDA(cudaGraphKernelNodeGetParams(add_a, &got));
  CHECK(got.func == (void*)add && got.gridDim.x == unsigned(blocks) && *static_cast<int*>(got.kernelParams[2]) == 10);
  CHECK_ERR(cudaGraphKernelNodeGetParams(set_b, &got), cudaErrorInvalidValue);

  // Launch twice: the result depends on the order of the diamond's nodes.
  cudaGraphExec_t exec;
  CHECK_CUDA(cudaGraphInstantiate(&exec, g, 0));
  cudaStream_t s;
  CHECK_CUDA(cudaStreamCreate(&s));
  for (int launch = 1; launch <= 2; ++launch) {
    std::fill(out.begin(), out.end(), -1);
    CHECK_CUDA(cudaGraphLaunch(exec, s));
    CHECK_CUDA(cudaStreamSynchronize(s));
    for (int i = 0; i < kN; ++i) CHECK(out[i] == i + 10 + 0x01020304 + 3);
    CHECK(log.calls == launch && log.first == 10 + 0x01020304 + 3);
  }
  CHECK_CUDA(cudaEventSynchronize(ev));

  // A parameter change of the graph does not reach the executable graph; an exec-node change does.
  int five = 5;
  void* add_five[] = {&a, &n, &five};
  cudaKernelNodeParams add_a_five = kernel((void*)add, blocks, add_five);
  CHECK_CUDA(cudaGraphKernelNodeSetParams(add_a, &add_a_five));
  CHECK_CUDA(cudaGraphLaunch(exec, s));
  CHECK_CUDA(cudaStreamSynchronize(s));
  CHECK(out[7] == 7 + 10 + 0x01020304 + 3);
  void* scale_args[] = {&a, &n, &three};
  cudaKernelNodeParams scale_a = kernel((void*)scale, blocks, scale_args);
  CHECK_CUDA(cudaGraphExecKernelNodeSetParams(exec, add_a, &scale_a));
  ms.value = 0;
  CHECK_CUDA(cudaGraphExecMemsetNodeSetParams(exec, set_b, &ms));
  CHECK_CUDA(cudaGraphLaunch(exec, s));
  CHECK_CUDA(cudaStreamSynchronize(s));
  CHECK(out[7] == 7 * 3 + 3);

  // cudaGraphExecUpdate: the modified graph (add 5, memset 0x01020304) replaces the parameters.
  cudaGraphExecUpdateResultInfo info{};
  CHECK_CUDA(cudaGraphExecUpdate(exec, g, &info));
  CHECK(info.result == cudaGraphExecUpdateSuccess);
  CHECK_CUDA(cudaGraphLaunch(exec, s));
  CHECK_CUDA(cudaStreamSynchronize(s));
  CHECK(out[7] == 7 + 5 + 0x01020304 + 3);
  // A clone with an extra node has another topology.
  cudaGraph_t bigger;
  CHECK_CUDA(cudaGraphClone(&bigger, g));
  cudaGraphNode_t joined_copy, extra;
  CHECK_CUDA(cudaGraphNodeFindInClone(&joined_copy, joined, bigger));
  CHECK_CUDA(cudaGraphAddEmptyNode(&extra, bigger, &joined_copy, 1));
  CHECK_ERR(cudaGraphExecUpdate(exec, bigger, &info), cudaErrorGraphExecUpdateFailure);
  CHECK(info.result == cudaGraphExecUpdateErrorTopologyChanged);
  // So has one with an edge less.
  CHECK_CUDA(cudaGraphDestroyNode(extra));
  cudaGraphNode_t copy_out_copy;
  CHECK_CUDA(cudaGraphNodeFindInClone(&copy_out_copy, copy_out, bigger));
  CHECK_CUDA(cudaGraphRemoveDependencies(bigger, &joined_copy, &copy_out_copy, nullptr, 1));
  CHECK_ERR(cudaGraphRemoveDependencies(bigger, &joined_copy, &copy_out_copy, nullptr, 1), cudaErrorInvalidValue);
  CHECK_ERR(cudaGraphExecUpdate(exec, bigger, &info), cudaErrorGraphExecUpdateFailure);
  CHECK(info.result == cudaGraphExecUpdateErrorTopologyChanged && info.errorNode == copy_out_copy);
  CHECK_CUDA(cudaGraphAddDependencies(bigger, &joined_copy, &copy_out_copy, nullptr, 1));
  CHECK_CUDA(cudaGraphExecUpdate(exec, bigger, &info));
  CHECK_ERR(cudaGetLastError(), cudaErrorGraphExecUpdateFailure);  // the last failure above

  // A child graph (the diamond) inside a graph that allocates, uses and frees memory.
  cudaGraph_t outer;
  CHECK_CUDA(cudaGraphCreate(&outer, 0));
  cudaGraphNode_t child, alloc, use, free_node;
  CHECK_CUDA(cudaGraphAddChildGraphNode(&child, outer, nullptr, 0, g));
  cudaMemAllocNodeParams ap{};
  ap.poolProps.allocType = cudaMemAllocationTypePinned;
  ap.poolProps.location.type = cudaMemLocationTypeDevice;
  ap.bytesize = kN * sizeof(int);
  CHECK_CUDA(cudaGraphAddMemAllocNode(&alloc, outer, &child, 1, &ap));
  CHECK(ap.dptr != nullptr);
  int* tmp = static_cast<int*>(ap.dptr);
  cudaMemcpy3DParms to_tmp{};
  to_tmp.srcPtr = make_cudaPitchedPtr(c, kN * sizeof(int), kN * sizeof(int), 1);
  to_tmp.dstPtr = make_cudaPitchedPtr(tmp, kN * sizeof(int), kN * sizeof(int), 1);
  to_tmp.extent = make_cudaExtent(kN * sizeof(int), 1, 1);
  to_tmp.kind = cudaMemcpyDeviceToDevice;
  CHECK_CUDA(cudaGraphAddMemcpyNode(&use, outer, &alloc, 1, &to_tmp));
  cudaGraphNode_t scale_tmp;
  void* scale_tmp_args[] = {&tmp, &n, &three};
  cudaKernelNodeParams scale_tmp_params = kernel((void*)scale, blocks, scale_tmp_args);
  CHECK_CUDA(cudaGraphAddKernelNode(&scale_tmp, outer, &use, 1, &scale_tmp_params));
  cudaGraphNode_t read_tmp;
  std::vector<int> tripled(kN);
  CHECK_CUDA(cudaGraphAddMemcpyNode1D(&read_tmp, outer, &scale_tmp, 1, tripled.data(), tmp, kN * sizeof(int),
                                      cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaGraphAddMemFreeNode(&free_node, outer, &read_tmp, 1, tmp));
  CHECK_ERR(cudaGraphAddMemFreeNode(&free_node, outer, &read_tmp, 1, a), cudaErrorInvalidValue);
  cudaGraph_t child_graph;
  CHECK_CUDA(cudaGraphChildGraphNodeGetGraph(child, &child_graph));
  CHECK_CUDA(cudaGraphGetNodes(child_graph, nullptr, &count));
  CHECK(count == 9);
  cudaGraphExec_t outer_exec;
  CHECK_CUDA(cudaGraphInstantiateWithFlags(&outer_exec, outer, 0));
  CHECK_CUDA(cudaGraphUpload(outer_exec, s));
  CHECK_CUDA(cudaGraphLaunch(outer_exec, s));
  CHECK_CUDA(cudaStreamSynchronize(s));
  for (int i = 0; i < kN; ++i) CHECK(tripled[i] == 3 * (i + 5 + 0x01020304 + 3));

  // Copies to and from a device variable: symbol_data = {1,2,3,4}, then doubled back out.
  cudaGraph_t sym;
  CHECK_CUDA(cudaGraphCreate(&sym, 0));
  int sym_in[4] = {1, 2, 3, 4}, sym_out[4] = {};
  cudaGraphNode_t to_sym, double_sym, from_sym;
  CHECK_CUDA(cudaGraphAddMemcpyNodeToSymbol(&to_sym, sym, nullptr, 0, symbol_data, sym_in, sizeof sym_in, 0,
                                            cudaMemcpyHostToDevice));
  int* sym_ptr;
  CHECK_CUDA(cudaGetSymbolAddress((void**)&sym_ptr, symbol_data));
  int four = 4, two = 2;
  void* double_args[] = {&sym_ptr, &four, &two};
  cudaKernelNodeParams double_params = kernel((void*)scale, 1, double_args);
  CHECK_CUDA(cudaGraphAddKernelNode(&double_sym, sym, &to_sym, 1, &double_params));
  CHECK_CUDA(cudaGraphAddMemcpyNodeFromSymbol(&from_sym, sym, &double_sym, 1, sym_out + 1, symbol_data,
                                              3 * sizeof(int), sizeof(int), cudaMemcpyDefault));
  CHECK_ERR(cudaGraphAddMemcpyNodeFromSymbol(&from_sym, sym, nullptr, 0, sym_out, symbol_data, sizeof sym_out,
                                             sizeof(int), cudaMemcpyDeviceToHost),
            cudaErrorInvalidValue);  // past the variable's end
  cudaGraphExec_t sym_exec;
  CHECK_CUDA(cudaGraphInstantiate(&sym_exec, sym, 0));
  CHECK_CUDA(cudaGraphLaunch(sym_exec, s));
  CHECK_CUDA(cudaStreamSynchronize(s));
  CHECK(sym_out[0] == 0 && sym_out[1] == 4 && sym_out[2] == 6 && sym_out[3] == 8);
  CHECK_CUDA(cudaGraphExecDestroy(sym_exec));
  CHECK_CUDA(cudaGraphDestroy(sym));

  // The DOT description names the nodes.
  const char* dot = "graphs_test.dot";
  CHECK_CUDA(cudaGraphDebugDotPrint(outer, dot, 0));
  std::FILE* f = std::fopen(dot, "r");
  CHECK(f != nullptr);
  char text[4096] = {};
  size_t len = std::fread(text, 1, sizeof text - 1, f);
  std::fclose(f);
  std::remove(dot);
  CHECK(len > 0 && std::strstr(text, "digraph") && std::strstr(text, "kernel") && std::strstr(text, "mem alloc"));

  CHECK_CUDA(cudaGraphExecDestroy(outer_exec));
  CHECK_CUDA(cudaGraphExecDestroy(exec));
  CHECK_CUDA(cudaGraphDestroy(outer));
  CHECK_CUDA(cudaGraphDestroy(g));
  CHECK_CUDA(cudaStreamDestroy(s));
  std::printf("PASS graphs\n");
  return 0;
}
