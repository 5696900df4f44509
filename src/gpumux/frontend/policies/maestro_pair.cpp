#include "gpumux/frontend/policies/maestro_pair.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

namespace gpumux::frontend::maestro {

std::vector<size_t> group_sms(size_t kernels, size_t sms) {
  std::vector<uint32_t> share = policy::split_evenly(uint32_t(sms), kernels);
  std::vector<size_t> sizes;
  for (size_t i = 0; i < kernels; i += 2) sizes.push_back(share[i] + (i + 1 < kernels ? share[i + 1] : 0));
  return sizes;
}

std::array<std::optional<size_t>, 2> place_trials(std::span<const SmSlot> slots,
                                                  const std::array<std::optional<Quota>, 2>& want,
                                                  const Quota& follower, uint32_t& swaps) {
  std::vector<bool> taken(slots.size());
  for (size_t i = 0; i < slots.size(); ++i) taken[i] = !slots[i].free;
  // Search order: SM 2 on, then 0 and 1 (the dedicated SMs' places).
  std::vector<size_t> order;
  for (size_t i = 2; i < slots.size(); ++i) order.push_back(i);
  for (size_t i = 0; i < std::min<size_t>(2, slots.size()); ++i) order.push_back(i);
  std::array<std::optional<size_t>, 2> at;
  for (size_t role = 0; role < 2; ++role) {
    if (!want[role]) continue;
    const Quota& w = *want[role];
    auto first = [&](auto&& pred) -> std::optional<size_t> {
      for (size_t i : order)
        if (!taken[i] && pred(slots[i])) return i;
      return std::nullopt;
    };
    auto changes = [&](const SmSlot& s) { return s.had && *s.had != follower; };
    std::optional<size_t> i = first([&](const SmSlot& s) { return s.was == role && s.had == w; });
    if (!i) {
      i = first([&](const SmSlot& s) { return s.had == w; });
      if (i) ++swaps;
    }
    if (!i) i = first([&](const SmSlot& s) { return s.was && changes(s); });
    if (!i) i = first(changes);
    if (!i && 2 + role < slots.size() && !taken[2 + role]) i = 2 + role;
    if (!i) i = first([](const SmSlot&) { return true; });
    if (i) taken[*i] = true;
    at[role] = i;
  }
  return at;
}

Pair::Pair(std::array<ActiveKernel, 2> ks, const SmParams& p, const MaestroOptions& o, const History& h) : o_(o) {
  // The trial kernel: fewer TBs on an empty SM; ties by label, so that the
  // same two kernels make the same pair whichever was launched first.
  const uint32_t t0 = policy::tbs_per_empty_sm(*ks[0].kernel, p), t1 = policy::tbs_per_empty_sm(*ks[1].kernel, p);
  if (t1 < t0 || (t1 == t0 && ks[1].kernel->label < ks[0].kernel->label)) std::swap(ks[0], ks[1]);
  for (size_t k = 0; k < 2; ++k) {
    ids_[k] = ks[k].kernel->id;
    keys_[k] = ks[k].kernel->key;
    labels_[k] = ks[k].kernel->label;
    needs_[k] = policy::needs(*ks[k].kernel);
  }
  capacity_ = policy::capacity(p);
  policy::Amounts half = capacity_;
  for (uint64_t& v : half) v /= 2;
  even_q_ = uint32_t(policy::tbs_within(half, needs_[0]).tbs);
  if (!shares_sm(even_q_)) {
    even_q_ = 1;
    if (!shares_sm(1))
      throw PartitionError(fmt::format("sharing policy maestro: kernels {} and {} cannot share an SM (one TB of each "
                                       "needs more than an SM has: {} and {} of {})",
                                       labels_[0], labels_[1], policy::describe(needs_[0]),
                                       policy::describe(needs_[1]), policy::describe(capacity_)));
  }
  auto known = h.find(labels());
  const Memory* m = known != h.end() ? &known->second : nullptr;
  follower_q_ = m && shares_sm(m->follower_q) ? m->follower_q : even_q_;
  if (!m || !o.resume_pairs) return;
  resumed_ = true;
  spatial_pairs_ = m->spatial_pairs;
  since_dedicated_ = m->since_dedicated;
  dedicated_ = m->dedicated;
  previous_ = m->previous;
  stored_ = m->stored;
  carried_ = m->unfinished;
}

std::optional<size_t> Pair::which(uint32_t kernel_id) const {
  if (kernel_id == ids_[0]) return 0;
  if (kernel_id == ids_[1]) return 1;
  return std::nullopt;
}

uint32_t Pair::quota(size_t which, uint32_t sm) const {
  return sm < roles_.size() ? quotas_[size_t(roles_[sm])][which] : 0;
}

Pair::Memory Pair::leave(Cycle cycles, std::span<sm::Sm* const> sms) const {
  return {follower_q_, spatial_pairs_, since_dedicated_, dedicated_, previous_, stored_,
          cycles && marks_.size() == sms.size() ? measured(cycles, sms) : carried_};
}

void Pair::dedicate() {
  dedicated_ = true;
  since_dedicated_ = 0;
  previous_.reset();
}

uint32_t Pair::fill(uint32_t q) const {
  policy::Amounts left = capacity_;
  for (size_t r = 0; r < policy::kNumResources; ++r) {
    if (uint64_t(q) * needs_[0][r] > left[r]) return 0;
    left[r] -= uint64_t(q) * needs_[0][r];
  }
  return uint32_t(policy::tbs_within(left, needs_[1]).tbs);
}

void Pair::layout(std::span<sm::Sm* const> sms, Counters& c) {
  // Each SM's role and quota under the last layout, for role swaps.
  std::vector<SmSlot> slots(sms.size());
  if (o_.role_swaps && !roles_.empty())
    for (size_t i = 0; i < sms.size(); ++i) {
      const Role r = roles_[sms[i]->id()];
      slots[i].had = quotas_[size_t(r)];
      if (r == Role::TrialMore) slots[i].was = 0;
      if (r == Role::TrialFewer) slots[i].was = 1;
    }
  uint32_t max_id = 0;
  for (const sm::Sm* s : sms) max_id = std::max(max_id, s->id());
  roles_.assign(size_t(max_id) + 1, Role::Follower);
  spatial_pairs_ = std::min(spatial_pairs_, max_spatial_pairs(sms.size()));  // a resumed pair may have fewer SMs
  const uint32_t q = follower_q_;
  quotas_.fill({q, fill(q)});
  quotas_[size_t(Role::DedicatedTrial)] = quotas_[size_t(Role::SpatialTrial)] = {SharingPolicy::kUnlimited, 0};
  quotas_[size_t(Role::DedicatedOther)] = quotas_[size_t(Role::SpatialOther)] = {0, SharingPolicy::kUnlimited};
  std::array<std::optional<Quota>, 2> want;
  if (shares_sm(q + 1)) want[0] = quotas_[size_t(Role::TrialMore)] = {q + 1, fill(q + 1)};
  if (shares_sm(q - 1)) want[1] = quotas_[size_t(Role::TrialFewer)] = {q - 1, fill(q - 1)};
  if (sms.size() < kMinSms) return;
  auto set = [&](size_t i, Role r) { roles_[sms[i]->id()] = r; };
  if (dedicated_) set(0, Role::DedicatedTrial), set(1, Role::DedicatedOther);
  for (uint32_t j = 0; j < 2 * spatial_pairs_; ++j)
    set(sms.size() - 1 - j, j % 2 ? Role::SpatialOther : Role::SpatialTrial);
  for (size_t i = 0; i < sms.size(); ++i) slots[i].free = roles_[sms[i]->id()] == Role::Follower;
  uint32_t swaps = 0;
  const std::array<std::optional<size_t>, 2> at = place_trials(slots, want, quotas_[size_t(Role::Follower)], swaps);
  c.role_swaps.add(swaps);
  if (at[0]) set(*at[0], Role::TrialMore);
  if (at[1]) set(*at[1], Role::TrialFewer);
  // A carried epoch goes on only with the layout it was measured under (as
  // many SMs in each role).
  std::array<uint32_t, kRoles> count{};
  for (const sm::Sm* s : sms) ++count[size_t(roles_[s->id()])];
  if (carried_.count != count) carried_ = {};
}

void Pair::start_epoch(std::span<sm::Sm* const> sms) {
  marks_.resize(sms.size());
  for (size_t i = 0; i < sms.size(); ++i)
    for (size_t k = 0; k < 2; ++k) marks_[i][k] = sms[i]->stats().warp_insts.at(keys_[k]).value();
}

Pair::Counts Pair::measured(Cycle cycles, std::span<sm::Sm* const> sms) const {
  Counts m;
  for (size_t i = 0; i < sms.size(); ++i) {
    const sm::SmStats& st = sms[i]->stats();
    Role r = roles_[sms[i]->id()];
    ++m.count[size_t(r)];
    for (size_t k = 0; k < 2; ++k) m.insts[size_t(r)][k] += st.warp_insts.at(keys_[k]).value() - marks_[i][k];
  }
  // A carried epoch ran the same layout (layout() keeps it only then): its counts add.
  if (carried_.cycles) {
    m.cycles = carried_.cycles;
    for (size_t r = 0; r < kRoles; ++r)
      for (size_t k = 0; k < 2; ++k) m.insts[r][k] += carried_.insts[r][k];
  }
  m.cycles += cycles;
  return m;
}

bool Pair::decide(Cycle cycles, std::span<sm::Sm* const> sms, Counters& c) {
  const Counts run = measured(cycles, sms);
  carried_ = {};
  // Per-SM CPI of each kernel over the SMs of `roles` (+infinity: none issued).
  auto cpi = [&](std::initializer_list<Role> roles) {
    CpiPair v{};
    for (size_t k = 0; k < 2; ++k) {
      uint64_t n = 0, sms_in = 0;
      for (Role r : roles) n += run.insts[size_t(r)][k], sms_in += run.count[size_t(r)];
      v[k] = n ? double(run.cycles) * double(sms_in) / double(n) : std::numeric_limits<double>::infinity();
    }
    return v;
  };
  auto group = [&](Role r) { return run.count[size_t(r)] ? std::optional<CpiPair>(cpi({r})) : std::nullopt; };
  EpochCpi e;
  bool now_stable = false;
  if (dedicated_) {
    CpiPair ded = cpi({Role::DedicatedTrial});
    ded[1] = cpi({Role::DedicatedOther})[1];
    e.isolated = stored_ = ded;
    now_stable = previous_ && stable(*previous_, ded, o_.stable_tolerance);
    previous_ = ded;
  } else {
    e.isolated = stored_;
  }
  // Spatial: measured where a kernel runs alone, else the stored CPI alone stands in.
  e.spatial = stored_;
  if (dedicated_ || spatial_pairs_ > 0) {
    e.spatial->at(0) = cpi({Role::DedicatedTrial, Role::SpatialTrial})[0];
    e.spatial->at(1) = cpi({Role::DedicatedOther, Role::SpatialOther})[1];
  }
  e.followers = group(Role::Follower);
  e.trial_more = group(Role::TrialMore);
  e.trial_fewer = group(Role::TrialFewer);
  Decision d = maestro::decide(o_.objective, e);
  c.epochs.add();
  ++since_dedicated_;
  const uint32_t q = follower_q_, m = spatial_pairs_;
  if (d.choice == Choice::Spatial) {
    if (spatial_pairs_ < max_spatial_pairs(sms.size())) ++spatial_pairs_;
    c.spatial.add();
  } else {
    if (d.choice == Choice::TrialMore) ++follower_q_;
    if (d.choice == Choice::TrialFewer) --follower_q_;
    if (spatial_pairs_ > 0) --spatial_pairs_;
    (follower_q_ == even_q_ ? c.smk_even : c.smk_other).add();
  }
  bool changed = q != follower_q_ || m != spatial_pairs_;
  if (changed) c.repartitions.add();
  if (changed || (!dedicated_ && since_dedicated_ >= o_.rededicate_every)) {
    dedicate();
    return true;
  }
  if (now_stable) {
    dedicated_ = false;  // stable: the dedicated SMs become followers
    return true;
  }
  return false;
}

}  // namespace gpumux::frontend::maestro
