#include "gpumux/mem/memory_system.h"

#include <fmt/format.h>

#include <stdexcept>

namespace gpumux::mem {

class MemorySystem::ResponseTap : public MemSink {
 public:
  ResponseTap(MemorySystem& ms) : ms_(ms) {}
  void connect(MemSink* sm) { sm_ = sm; }
  bool can_accept(const MemRequest& r) const override { return sm_->can_accept(r); }
  void accept(const MemRequest& r) override {
    const ClockDomain& core = ms_.engine_.clock(ms_.core_);
    ms_.latency_[r.key].sample(core.cycle_at(ms_.engine_.now()) - core.cycle_at(r.issued));
    sm_->accept(r);
  }

 private:
  MemorySystem& ms_;
  MemSink* sm_ = nullptr;
};

MemorySystem::MemorySystem(Engine& engine, const GpuClocks& clocks, const GpuConfig& config, StatRegistry& stats)
    : engine_(engine),
      core_(clocks.core),
      map_(config.address_map, config.gpu.num_partitions, config.dram),
      latency_(Histogram(10, 100)) {
  const uint32_t sms = config.gpu.num_sms;
  const uint32_t parts = config.gpu.num_partitions;
  // Creation order is registration order: upstream components tick first in a cycle.
  for (uint32_t i = 0; i < sms; ++i) {
    taps_.push_back(std::make_unique<ResponseTap>(*this));
    l1d_.push_back(std::make_unique<Cache>(engine, clocks.core, fmt::format("sm{}.l1d", i), config.l1d,
                                           uint64_t(config.l1d.size_kb) * 1024, std::nullopt, map_, false));
  }
  if (config.vm.translation)
    mmu_ = std::make_unique<Mmu>(engine, clocks.core, config.clock.core_mhz, config.vm, sms);
  to_mem_ = std::make_unique<Crossbar>(engine, clocks.icnt, "icnt.to_mem", config.icnt, sms, parts,
                                       Crossbar::Direction::ToMemory);
  to_sm_ = std::make_unique<Crossbar>(engine, clocks.icnt, "icnt.to_sm", config.icnt, parts, sms,
                                      Crossbar::Direction::ToCores);
  const uint64_t slice_bytes = uint64_t(config.l2.size_kb) * 1024 / parts;
  for (uint32_t p = 0; p < parts; ++p) {
    l2_.push_back(std::make_unique<Cache>(engine, clocks.l2, fmt::format("mem{}.l2", p), config.l2, slice_bytes,
                                          config.l2.atomic_latency, map_, true));
    dram_.push_back(std::make_unique<DramChannel>(engine, clocks.dram, fmt::format("mem{}.dram", p), config.dram, map_));
  }
  for (uint32_t i = 0; i < sms; ++i) {
    if (mmu_) {
      l1d_[i]->connect(&mmu_->port(i), taps_[i].get());
      mmu_->connect(i, &to_mem_->input(i));
    } else {
      l1d_[i]->connect(&to_mem_->input(i), taps_[i].get());
    }
    to_sm_->connect_output(i, &l1d_[i]->fill_port());
    l1d_[i]->stats().register_in(stats, l1d_[i]->name());
  }
  for (uint32_t p = 0; p < parts; ++p) {
    to_mem_->connect_output(p, l2_[p].get());
    l2_[p]->connect(dram_[p].get(), &to_sm_->input(p));
    dram_[p]->connect(&l2_[p]->fill_port());
    l2_[p]->stats().register_in(stats, l2_[p]->name());
    dram_[p]->stats().register_in(stats, dram_[p]->name());
  }
  to_mem_->stats().register_in(stats, to_mem_->name());
  to_sm_->stats().register_in(stats, to_sm_->name());
  if (mmu_) mmu_->stats().register_in(stats, "vm");
  stats.add("mem.latency", latency_, "core cycles from send to response");
}

MemorySystem::~MemorySystem() = default;

void MemorySystem::connect_sm(uint32_t sm, MemSink& responses) { taps_.at(sm)->connect(&responses); }

bool MemorySystem::can_accept(uint32_t sm) const { return l1d_[sm]->can_accept(MemRequest{}); }

void MemorySystem::send(MemRequest r) {
  if (r.sm >= l1d_.size()) throw std::out_of_range(fmt::format("memory request from SM {}", r.sm));
  r.addr = line_of(r.addr);
  r.partition = uint16_t(map_.partition(r.addr));
  r.issued = engine_.now();
  l1d_[r.sm]->accept(r);
}

}  // namespace gpumux::mem
