// Stream capture (docs/cuda-programs.md, "Graphs and stream capture"): while
// a stream captures, the work the program enqueues in it becomes nodes of the
// capture's graph instead of running. A capture starts in one stream
// (cudaStreamBeginCapture) and spreads to the streams that wait for events
// recorded in a capturing stream (fork); cudaStreamEndCapture in the origin
// stream requires the other streams' work to have been joined back. Calls
// that would wait for device work are prohibited by the capture mode rules
// (cudaThreadExchangeStreamCaptureMode) and invalidate the capture. Callers
// hold the runtime's lock (Runtime::call); errors are thrown as CudaError.
#pragma once

#include <map>
#include <memory>
#include <thread>
#include <vector>

#include "gpumux/cudart/graph.h"

namespace gpumux::cudart {

class Captures {
 public:
  static Captures& get();

  // `into`: cudaStreamBeginCaptureToGraph's graph with the first nodes'
  // dependencies; null: a new graph.
  void begin(cudaStream_t s, cudaStreamCaptureMode mode, CUgraph_st* into, const cudaGraphNode_t* deps,
             size_t num_deps);
  // The captured graph (the program owns it); CudaError if the capture was
  // invalidated or the other streams were not joined (the capture ends anyway).
  CUgraph_st* end(cudaStream_t s);
  struct Info {
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    unsigned long long id = 0;
    CUgraph_st* graph = nullptr;
    const std::vector<CUgraphNode_st*>* deps = nullptr;
  };
  Info info(cudaStream_t s) const;
  void update_dependencies(cudaStream_t s, const cudaGraphNode_t* nodes, size_t n, unsigned flags);

  // If `s` captures: adds the node after the stream's dependencies, makes it
  // the stream's dependency and returns it; else null.
  CUgraphNode_st* capture(cudaStream_t s, cudaGraphNodeType type, NodeParams params);
  // cudaEventRecord: in a capturing stream the event takes the stream's
  // dependencies (a record node too with cudaEventRecordExternal); true if captured.
  bool record(cudaEvent_t e, cudaStream_t s, unsigned flags);
  // cudaStreamWaitEvent: joins or forks a capture; true if the wait was captured.
  bool wait(cudaStream_t s, cudaEvent_t e, unsigned flags);
  void forget(cudaEvent_t e) { events_.erase(e); }
  void forget(cudaStream_t s) { streams_.erase(s); }
  // CudaError CapturedEvent if `e` was last recorded in a capture.
  void check_host_wait(cudaEvent_t e) const;
  // A call that waits for device work (`stream`: the stream it waits for; null: any):
  // CudaError StreamCaptureUnsupported, invalidating the captures that prohibit it.
  void check_wait(cudaStream_t stream = nullptr);
  // A call the capture mode rules prohibit (cudaMalloc, synchronous copies): as check_wait.
  void check_unsafe_call();
  cudaStreamCaptureMode exchange_mode(cudaStreamCaptureMode m);

 private:
  struct Capture {
    unsigned long long id;
    std::unique_ptr<CUgraph_st> owned;  // null when capturing into the program's graph
    CUgraph_st* graph;
    cudaStreamCaptureMode mode;
    std::thread::id thread;
    cudaStream_t origin;
    bool invalidated = false;
  };
  struct StreamState {
    std::shared_ptr<Capture> capture;
    std::vector<CUgraphNode_st*> deps;  // what the stream's next node depends on
  };
  struct EventState {
    std::weak_ptr<Capture> capture;
    std::vector<CUgraphNode_st*> deps;
  };
  StreamState& capturing(cudaStream_t s);  // CudaError if not, or invalidated
  [[noreturn]] void prohibit(const std::vector<std::shared_ptr<Capture>>& culprits, const char* why);

  std::map<cudaStream_t, StreamState> streams_;
  std::map<cudaEvent_t, EventState> events_;
  unsigned long long next_id_ = 1;
};

}  // namespace gpumux::cudart
