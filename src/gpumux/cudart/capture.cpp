#include "gpumux/cudart/capture.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "gpumux/cudart/state.h"

namespace gpumux::cudart {

namespace {

// The calling thread's capture interaction mode (cudaThreadExchangeStreamCaptureMode).
thread_local cudaStreamCaptureMode thread_mode = cudaStreamCaptureModeGlobal;

bool is_legacy(cudaStream_t s) { return reinterpret_cast<uintptr_t>(s) <= 1; }

void add_unique(std::vector<CUgraphNode_st*>& to, const std::vector<CUgraphNode_st*>& nodes) {
  for (CUgraphNode_st* n : nodes)
    if (std::find(to.begin(), to.end(), n) == to.end()) to.push_back(n);
}

}  // namespace

Captures& Captures::get() {
  static Captures* c = new Captures();  // never destroyed, like the Runtime
  return *c;
}

void Captures::begin(cudaStream_t s, cudaStreamCaptureMode mode, CUgraph_st* into, const cudaGraphNode_t* deps,
                     size_t num_deps) {
  if (is_legacy(s))
    throw CudaError{cudaErrorStreamCaptureUnsupported, "the legacy default stream cannot be captured"};
  if (mode < cudaStreamCaptureModeGlobal || mode > cudaStreamCaptureModeRelaxed)
    throw CudaError{cudaErrorInvalidValue, fmt::format("capture mode {}", int(mode))};
  if (streams_.count(s)) throw CudaError{cudaErrorIllegalState, "the stream is capturing already"};
  if (num_deps && !deps) throw CudaError{cudaErrorInvalidValue, "null dependency array"};
  auto c = std::make_shared<Capture>();
  c->id = next_id_++;
  if (!into) {
    c->owned = std::make_unique<CUgraph_st>();
    into = c->owned.get();
  }
  c->graph = into;
  c->mode = mode;
  c->thread = std::this_thread::get_id();
  c->origin = s;
  StreamState st{c, {}};
  for (size_t i = 0; i < num_deps; ++i) {
    if (!deps[i] || deps[i]->graph != into) throw CudaError{cudaErrorInvalidValue, "a dependency of another graph"};
    st.deps.push_back(deps[i]);
  }
  streams_[s] = std::move(st);
}

Captures::StreamState& Captures::capturing(cudaStream_t s) {
  auto it = streams_.find(s);
  if (it == streams_.end()) throw CudaError{cudaErrorIllegalState, "the stream is not capturing"};
  if (it->second.capture->invalidated)
    throw CudaError{cudaErrorStreamCaptureInvalidated, "the stream's capture was invalidated by an earlier error"};
  return it->second;
}

CUgraph_st* Captures::end(cudaStream_t s) {
  auto it = streams_.find(s);
  if (it == streams_.end()) throw CudaError{cudaErrorIllegalState, "the stream is not capturing"};
  std::shared_ptr<Capture> c = it->second.capture;
  if (c->origin != s)
    throw CudaError{cudaErrorStreamCaptureUnmatched, "the capture must end in the stream where it began"};
  if (c->mode != cudaStreamCaptureModeRelaxed && c->thread != std::this_thread::get_id())
    throw CudaError{cudaErrorStreamCaptureWrongThread, "the capture began in another thread"};
  // Every other stream's last nodes must precede the origin stream's (joined).
  std::set<const CUgraphNode_st*> before;
  std::vector<const CUgraphNode_st*> todo(it->second.deps.begin(), it->second.deps.end());
  while (!todo.empty()) {
    const CUgraphNode_st* n = todo.back();
    todo.pop_back();
    if (before.insert(n).second) todo.insert(todo.end(), n->deps.begin(), n->deps.end());
  }
  bool joined = true;
  for (auto st = streams_.begin(); st != streams_.end();) {
    if (st->second.capture != c) {
      ++st;
      continue;
    }
    for (const CUgraphNode_st* n : st->second.deps) joined = joined && before.count(n);
    st = streams_.erase(st);
  }
  if (c->invalidated)
    throw CudaError{cudaErrorStreamCaptureInvalidated, "the capture was invalidated by an earlier error"};
  if (!joined)
    throw CudaError{cudaErrorStreamCaptureUnjoined, "a forked stream's work was not joined into the origin stream"};
  return c->owned ? c->owned.release() : c->graph;
}

Captures::Info Captures::info(cudaStream_t s) const {
  auto it = streams_.find(s);
  if (it == streams_.end()) return {};
  const Capture& c = *it->second.capture;
  if (c.invalidated) return {cudaStreamCaptureStatusInvalidated, c.id, nullptr, nullptr};
  return {cudaStreamCaptureStatusActive, c.id, c.graph, &it->second.deps};
}

void Captures::update_dependencies(cudaStream_t s, const cudaGraphNode_t* nodes, size_t n, unsigned flags) {
  StreamState& st = capturing(s);
  if (flags > cudaStreamSetCaptureDependencies) throw CudaError{cudaErrorInvalidValue, "unknown flags"};
  if (n && !nodes) throw CudaError{cudaErrorInvalidValue, "null node array"};
  std::vector<CUgraphNode_st*> given;
  for (size_t i = 0; i < n; ++i) {
    if (!nodes[i] || nodes[i]->graph != st.capture->graph)
      throw CudaError{cudaErrorInvalidValue, "a node of another graph"};
    given.push_back(nodes[i]);
  }
  if (flags == cudaStreamSetCaptureDependencies) st.deps.clear();
  add_unique(st.deps, given);
}

CUgraphNode_st* Captures::capture(cudaStream_t s, cudaGraphNodeType type, NodeParams params) {
  if (!streams_.count(s)) return nullptr;
  StreamState& st = capturing(s);
  CUgraphNode_st& n = add_node(*st.capture->graph, type, std::move(params), st.deps.data(), st.deps.size());
  st.deps = {&n};
  return &n;
}

bool Captures::record(cudaEvent_t e, cudaStream_t s, unsigned flags) {
  if (!streams_.count(s)) {
    events_.erase(e);
    return false;
  }
  if (flags & cudaEventRecordExternal) capture(s, cudaGraphNodeTypeEventRecord, EventParams{e});
  StreamState& st = capturing(s);
  events_[e] = {st.capture, st.deps};
  return true;
}

bool Captures::wait(cudaStream_t s, cudaEvent_t e, unsigned flags) {
  auto ev = events_.find(e);
  std::shared_ptr<Capture> from = ev == events_.end() ? nullptr : ev->second.capture.lock();
  auto st = streams_.find(s);
  if (!from) {  // an event of work outside any capture: it precedes the capture's work
    if (st == streams_.end()) return false;
    if (flags & cudaEventWaitExternal) capture(s, cudaGraphNodeTypeWaitEvent, EventParams{e});
    return true;
  }
  if (from->invalidated) throw CudaError{cudaErrorStreamCaptureInvalidated, "the event's capture was invalidated"};
  if (is_legacy(s)) {
    from->invalidated = true;
    throw CudaError{cudaErrorStreamCaptureImplicit, "the legacy default stream cannot join a capture"};
  }
  if (st == streams_.end()) {  // fork: the stream joins the capture
    streams_[s] = {from, ev->second.deps};
    return true;
  }
  if (st->second.capture != from) {
    st->second.capture->invalidated = from->invalidated = true;
    throw CudaError{cudaErrorStreamCaptureIsolation, "the event belongs to another capture"};
  }
  add_unique(capturing(s).deps, ev->second.deps);
  return true;
}

void Captures::check_host_wait(cudaEvent_t e) const {
  auto ev = events_.find(e);
  if (ev != events_.end() && !ev->second.capture.expired())
    throw CudaError{cudaErrorCapturedEvent, "the event was recorded in a capture: its work never runs as such"};
}

void Captures::prohibit(const std::vector<std::shared_ptr<Capture>>& culprits, const char* why) {
  for (const auto& c : culprits) c->invalidated = true;
  throw CudaError{cudaErrorStreamCaptureUnsupported, why};
}

void Captures::check_wait(cudaStream_t stream) {
  if (stream) {
    auto it = streams_.find(stream);
    if (it != streams_.end()) prohibit({it->second.capture}, "waiting for a capturing stream");
  }
  check_unsafe_call();
}

void Captures::check_unsafe_call() {
  if (thread_mode == cudaStreamCaptureModeRelaxed) return;
  std::vector<std::shared_ptr<Capture>> culprits;
  for (const auto& [s, st] : streams_) {
    const Capture& c = *st.capture;
    bool mine = c.thread == std::this_thread::get_id();
    if (c.mode != cudaStreamCaptureModeRelaxed &&
        (mine || (c.mode == cudaStreamCaptureModeGlobal && thread_mode == cudaStreamCaptureModeGlobal)))
      culprits.push_back(st.capture);
  }
  if (!culprits.empty()) prohibit(culprits, "the call is prohibited while a stream captures (capture mode rules)");
}

cudaStreamCaptureMode Captures::exchange_mode(cudaStreamCaptureMode m) {
  if (m < cudaStreamCaptureModeGlobal || m > cudaStreamCaptureModeRelaxed)
    throw CudaError{cudaErrorInvalidValue, fmt::format("capture mode {}", int(m))};
  std::swap(m, thread_mode);
  return m;
}

}  // namespace gpumux::cudart
