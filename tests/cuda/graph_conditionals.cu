// Conditional graph nodes: kernels set the condition with the device call
// cudaGraphSetConditional. A WHILE node runs its body until a counter
// reaches 0 (its handle reset to 1 at every launch); an IF node with an else
// body follows a flag that an executable-graph update changes; a SWITCH node
// runs the body its value selects. Prints "PASS graph_conditionals" when
// every check holds.
#include <cstdio>

#include "check.h"

__global__ void set_counter(int* counter, int start, int* iterations) {
  *counter = start;
  *iterations = 0;
}
// One loop iteration: counts down and continues while the counter is positive.
__global__ void step(cudaGraphConditionalHandle h, int* counter, int* iterations) {
  ++*iterations;
  cudaGraphSetConditional(h, --*counter > 0);
}
__global__ void set_condition(cudaGraphConditionalHandle h, unsigned value) { cudaGraphSetConditional(h, value); }
__global__ void store(int* out, int v) { *out = v; }

cudaKernelNodeParams kernel(void* fn, void** args) {
  cudaKernelNodeParams k{};
  k.func = fn;
  k.gridDim = dim3(1);
  k.blockDim = dim3(1);
  k.kernelParams = args;
  return k;
}

// A conditional node of `type` with `bodies` bodies after `dep`; returns the body graphs.
cudaGraph_t* add_conditional(cudaGraph_t g, cudaGraphNode_t dep, cudaGraphConditionalHandle h,
                             cudaGraphConditionalNodeType type, unsigned bodies) {
  cudaGraphNodeParams p{};
  p.type = cudaGraphNodeTypeConditional;
  p.conditional.handle = h;
  p.conditional.type = type;
  p.conditional.size = bodies;
  cudaGraphNode_t node;
  CHECK_CUDA(cudaGraphAddNode(&node, g, &dep, nullptr, 1, &p));
  CHECK(p.conditional.phGraph_out != nullptr);
  return p.conditional.phGraph_out;
}

void add_store(cudaGraph_t body, int** out, int* value, void** args) {
  args[0] = out;
  args[1] = value;
  cudaKernelNodeParams k = kernel((void*)store, args);
  cudaGraphNode_t n;
  CHECK_CUDA(cudaGraphAddKernelNode(&n, body, nullptr, 0, &k));
}

int main() {
  int *counter, *iterations, *out;
  CHECK_CUDA(cudaMalloc(&counter, sizeof(int)));
  CHECK_CUDA(cudaMalloc(&iterations, sizeof(int)));
  CHECK_CUDA(cudaMalloc(&out, sizeof(int)));
  cudaStream_t s;
  CHECK_CUDA(cudaStreamCreate(&s));

  // WHILE: set_counter(5) -> while (cond) { step }.
  cudaGraph_t loop;
  CHECK_CUDA(cudaGraphCreate(&loop, 0));
  cudaGraphConditionalHandle again;
  CHECK_CUDA(cudaGraphConditionalHandleCreate(&again, loop, 1, cudaGraphCondAssignDefault));
  int start = 5;
  void* init_args[] = {&counter, &start, &iterations};
  cudaKernelNodeParams init = kernel((void*)set_counter, init_args);
  cudaGraphNode_t init_node;
  CHECK_CUDA(cudaGraphAddKernelNode(&init_node, loop, nullptr, 0, &init));
  cudaGraph_t* body = add_conditional(loop, init_node, again, cudaGraphCondTypeWhile, 1);
  void* step_args[] = {&again, &counter, &iterations};
  cudaKernelNodeParams st = kernel((void*)step, step_args);
  cudaGraphNode_t step_node;
  CHECK_CUDA(cudaGraphAddKernelNode(&step_node, body[0], nullptr, 0, &st));
  cudaGraphExec_t loop_exec;
  CHECK_CUDA(cudaGraphInstantiate(&loop_exec, loop, 0));
  for (int launch = 0; launch < 2; ++launch) {  // the handle starts at 1 again
    CHECK_CUDA(cudaGraphLaunch(loop_exec, s));
    int n = -1, left = -1;
    CHECK_CUDA(cudaMemcpy(&n, iterations, sizeof n, cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(&left, counter, sizeof left, cudaMemcpyDeviceToHost));
    CHECK(n == 5 && left == 0);
  }

  // IF with else: set_condition(flag) -> if (cond) out = 1 else out = 2.
  cudaGraph_t branch;
  CHECK_CUDA(cudaGraphCreate(&branch, 0));
  cudaGraphConditionalHandle flag;
  CHECK_CUDA(cudaGraphConditionalHandleCreate(&flag, branch, 0, 0));
  unsigned one = 1, zero = 0;
  void* set_args[] = {&flag, &one};
  cudaKernelNodeParams set = kernel((void*)set_condition, set_args);
  cudaGraphNode_t set_node;
  CHECK_CUDA(cudaGraphAddKernelNode(&set_node, branch, nullptr, 0, &set));
  cudaGraph_t* sides = add_conditional(branch, set_node, flag, cudaGraphCondTypeIf, 2);
  int v1 = 1, v2 = 2;
  void *then_args[2], *else_args[2];
  add_store(sides[0], &out, &v1, then_args);
  add_store(sides[1], &out, &v2, else_args);
  cudaGraphExec_t branch_exec;
  CHECK_CUDA(cudaGraphInstantiate(&branch_exec, branch, 0));
  int got = 0;
  CHECK_CUDA(cudaGraphLaunch(branch_exec, s));
  CHECK_CUDA(cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost));
  CHECK(got == 1);
  set_args[1] = &zero;
  set = kernel((void*)set_condition, set_args);
  CHECK_CUDA(cudaGraphExecKernelNodeSetParams(branch_exec, set_node, &set));
  CHECK_CUDA(cudaGraphLaunch(branch_exec, s));
  CHECK_CUDA(cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost));
  CHECK(got == 2);

  // SWITCH over three bodies: value 2 runs the third; 7 runs none.
  cudaGraph_t choice;
  CHECK_CUDA(cudaGraphCreate(&choice, 0));
  cudaGraphConditionalHandle which;
  CHECK_CUDA(cudaGraphConditionalHandleCreate(&which, choice, 0, 0));
  unsigned two = 2;
  void* which_args[] = {&which, &two};
  cudaKernelNodeParams pick = kernel((void*)set_condition, which_args);
  cudaGraphNode_t pick_node;
  CHECK_CUDA(cudaGraphAddKernelNode(&pick_node, choice, nullptr, 0, &pick));
  cudaGraph_t* cases = add_conditional(choice, pick_node, which, cudaGraphCondTypeSwitch, 3);
  int values[3] = {10, 20, 30};
  void* case_args[3][2];
  for (int i = 0; i < 3; ++i) add_store(cases[i], &out, &values[i], case_args[i]);
  cudaGraphExec_t choice_exec;
  CHECK_CUDA(cudaGraphInstantiate(&choice_exec, choice, 0));
  CHECK_CUDA(cudaGraphLaunch(choice_exec, s));
  CHECK_CUDA(cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost));
  CHECK(got == 30);
  unsigned seven = 7;
  which_args[1] = &seven;
  pick = kernel((void*)set_condition, which_args);
  CHECK_CUDA(cudaGraphExecKernelNodeSetParams(choice_exec, pick_node, &pick));
  CHECK_CUDA(cudaMemset(out, 0, sizeof(int)));
  CHECK_CUDA(cudaGraphLaunch(choice_exec, s));
  CHECK_CUDA(cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost));
  CHECK(got == 0);

  // Handles belong to their graph; an IF node takes one or two bodies.
  cudaGraphNodeParams bad{};
  bad.type = cudaGraphNodeTypeConditional;
  bad.conditional.handle = again;
  bad.conditional.type = cudaGraphCondTypeIf;
  bad.conditional.size = 1;
  cudaGraphNode_t bad_node;
  CHECK_ERR(cudaGraphAddNode(&bad_node, choice, nullptr, nullptr, 0, &bad), cudaErrorInvalidValue);
  bad.conditional.handle = which;
  bad.conditional.size = 3;
  CHECK_ERR(cudaGraphAddNode(&bad_node, choice, nullptr, nullptr, 0, &bad), cudaErrorInvalidValue);

  for (cudaGraphExec_t e : {loop_exec, branch_exec, choice_exec}) CHECK_CUDA(cudaGraphExecDestroy(e));
  for (cudaGraph_t g : {loop, branch, choice}) CHECK_CUDA(cudaGraphDestroy(g));
  std::printf("PASS graph_conditionals\n");
  return 0;
}
