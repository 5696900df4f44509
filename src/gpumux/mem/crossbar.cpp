#include "gpumux/mem/crossbar.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

namespace gpumux::mem {

void CrossbarStats::register_in(StatRegistry& reg, const std::string& prefix) {
  reg.add(prefix + ".packets", packets, "packets carried");
  reg.add(prefix + ".bytes", bytes, "bytes carried (headers included)");
  reg.add(prefix + ".output_conflicts", output_conflicts, "cycles an input head waited for its output");
}

Crossbar::Crossbar(Engine& engine, DomainId domain, std::string name, const IcntParams& params, uint32_t inputs,
                   uint32_t outputs, Direction direction)
    : Component(engine, domain, std::move(name)), params_(params), direction_(direction), outputs_(outputs) {
  inputs_.reserve(inputs);
  for (uint32_t i = 0; i < inputs; ++i) inputs_.emplace_back(*this, i, params.input_queue);
  in_bits_.assign((inputs + 63) / 64, 0);
  out_bits_.assign((outputs + 63) / 64, 0);
  for (Output& o : outputs_) o.queue = RingQueue<InFlight>(params.output_queue);
}

uint32_t Crossbar::packet_bytes(const MemRequest& r) const {
  bool carries_data = direction_ == Direction::ToMemory
                          ? r.op == MemOp::Write || r.op == MemOp::Writeback || r.op == MemOp::Atomic
                          : r.op == MemOp::Read || r.op == MemOp::Atomic;
  return params_.header_bytes + (carries_data ? r.data_bytes() : 0);
}

Cycle Crossbar::tick(Cycle now) {
  // Deliver what has arrived, in order, as far as each sink accepts.
  Cycle next_arrival = kNever;
  for (size_t w = 0; w < out_bits_.size(); ++w) {
    for (uint64_t bits = out_bits_[w]; bits; bits &= bits - 1) {
      const uint32_t oi = uint32_t(w * 64 + unsigned(std::countr_zero(bits)));
      Output& o = outputs_[oi];
      while (!o.queue.empty() && o.queue.front().arrival <= now && o.sink->can_accept(o.queue.front().req)) {
        o.sink->accept(o.queue.front().req);
        o.queue.pop();
        --buffered_;
        engine().note_progress();
      }
      if (!o.queue.empty()) next_arrival = std::min(next_arrival, std::max(o.queue.front().arrival, now + 1));
      else clear_bit(out_bits_, oi);
    }
  }
  // Arbitrate: each free input offers its head packet, round robin from
  // next_input_ (inputs with empty queues skipped).
  const uint32_t n = uint32_t(inputs_.size());
  auto offer = [&](uint32_t i) {
    Input& in = inputs_[i];
    if (in.busy_until > now) return;
    const MemRequest& r = in.queue.front();
    const uint32_t oi = route(r);
    Output& out = outputs_[oi];
    if (out.busy_until > now || out.queue.size() >= params_.output_queue) {
      stats_.output_conflicts.add();
      return;
    }
    const uint32_t bytes = packet_bytes(r);
    const Cycle flits = (bytes + params_.port_bytes - 1) / params_.port_bytes;
    in.busy_until = out.busy_until = now + flits;
    const Cycle arrival = now + flits - 1 + params_.latency;
    out.queue.push(InFlight{arrival, r});
    set_bit(out_bits_, oi);
    next_arrival = std::min(next_arrival, arrival);
    stats_.packets[r.key].add();
    stats_.bytes[r.key].add(bytes);
    in.queue.pop();
    if (in.queue.empty()) clear_bit(in_bits_, i);
    --queued_;
    ++buffered_;
  };
  // Inputs [from, to) with queued packets, in index order. A snapshot of each
  // word: offer() only clears bits of inputs already visited.
  auto visit = [&](uint32_t from, uint32_t to) {
    for (uint32_t w = from / 64; w * 64 < to && queued_; ++w) {
      uint64_t bits = in_bits_[w];
      if (w == from / 64) bits &= ~uint64_t(0) << (from % 64);
      if (to < (w + 1) * 64) bits &= (uint64_t(1) << (to % 64)) - 1;
      for (; bits && queued_; bits &= bits - 1) offer(uint32_t(w * 64 + unsigned(std::countr_zero(bits))));
    }
  };
  if (queued_) {
    visit(next_input_, n);
    visit(0, next_input_);
  }
  next_input_ = (next_input_ + 1) % n;
  if (queued_) return now + 1;
  return next_arrival;
}

std::string Crossbar::describe_wait() const {
  if (!queued_ && !buffered_) return "";
  std::string blocked;
  for (size_t i = 0; i < inputs_.size(); ++i) {
    if (inputs_[i].queue.empty()) continue;
    const MemRequest& r = inputs_[i].queue.front();
    blocked += fmt::format(" in{}->out{}({} queued)", i, route(r), inputs_[i].queue.size());
  }
  std::string full;
  for (size_t o = 0; o < outputs_.size(); ++o)
    if (!outputs_[o].queue.empty()) full += fmt::format(" out{}:{}", o, outputs_[o].queue.size());
  return fmt::format("{} packets queued [{} ], {} in flight or waiting for their sink [{} ]", queued_, blocked,
                     buffered_, full);
}

}  // namespace gpumux::mem
