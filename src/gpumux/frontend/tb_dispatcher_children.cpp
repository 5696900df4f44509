// Child grids of device-side launch (dynamic parallelism): their device
// streams, held tail launches, and the parent's completion after its children.
#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "gpumux/frontend/tb_dispatcher.h"

namespace gpumux::frontend {

std::string queue_label(const KernelRecord& r) {
  return r.parent == KernelRecord::kNoParent ? fmt::format("stream {}", r.stream)
                                             : fmt::format("child grids, depth {}", r.depth);
}

size_t TbDispatcher::enqueue_child(std::unique_ptr<sm::KernelInstance> k, const exec::GridLaunch& parent,
                                   uint64_t parent_tb, exec::DeviceStream stream, std::string name) {
  auto it = std::find_if(active_.begin(), active_.end(), [&](const Running* r) { return &r->kernel->grid == &parent; });
  if (it == active_.end()) throw std::logic_error("device-side launch from a grid that is not running");
  Running& p = **it;
  const Cycle now = engine().wake_cycle(domain());
  k->priority = p.kernel->priority;
  k->sms = p.kernel->sms;  // a child grid runs in its parent's green context
  uint32_t id = 0;
  if (stream == exec::DeviceStream::Block) {
    auto [s, fresh] = p.block_streams.try_emplace(parent_tb, next_device_stream_);
    if (fresh) ++next_device_stream_;
    id = s->second;
  } else if (stream == exec::DeviceStream::FireAndForget) {
    id = next_device_stream_++;
  }  // tail launches get their stream when they are released (children_done)
  Running r;
  r.record = add_record(*k, id, std::move(name), now);
  records_[r.record].parent = p.record;
  r.launch_latency = p_.device_launch_latency;
  r.parent = &p;
  ++p.children;
  const size_t record = r.record;
  const uint32_t app = k->app;
  r.kernel = std::move(k);
  if (stream == exec::DeviceStream::TailLaunch)
    p.tails.push_back(std::move(r));
  else
    push(std::move(r), {app, id}, now);
  return record;
}

void TbDispatcher::children_done(Running& r, Cycle now) {
  if (r.tails.empty()) return retire(r, now);
  // Tail launches of one grid run in launch order on one stream.
  const uint32_t id = next_device_stream_++;
  const StreamId s{r.kernel->app, id};
  for (Running& t : r.tails) {
    records_[t.record].stream = id;
    push(std::move(t), s, now);
  }
  r.tails.clear();
}

}  // namespace gpumux::frontend
