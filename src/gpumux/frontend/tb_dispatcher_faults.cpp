// The dispatcher's side of page faults (docs/virtual-memory.md): TB switching
// on fault (the thesis's section 6.4.1: which TB takes a faulted TB's place,
// and when a switched-out TB may resume) and fault-aware scheduling (its
// section 7.2.3: "the scheduler could decide to vacate an underutilized SM and
// schedule some other process to run on it until the migrations are
// performed"). Under a fault-aware policy, an SM whose TBs all wait for faults
// while no TB of their kernels takes their place (TB switching on fault, when
// on: a TB ready to resume) is lent to the first active
// kernel (dispatch-priority order) without TBs there that has TBs to place
// (before new TBs of its own kernels, which would likely fault too):
// the SM's TBs are switched out as on a fault (those whose loads merged into
// another's faulted miss included), and only the borrower places
// TBs there, as many as fit, whatever the policy's partition. The loan ends
// "when the migrations are performed": when every TB vacated may resume (its
// faults serviced), or when the borrower leaves the active kernels; the
// borrower's TBs there are then preempted with the policy's mechanism, as any
// TBs beyond the partition.
#include <algorithm>
#include <deque>

#include "gpumux/frontend/tb_dispatcher.h"

namespace gpumux::frontend {

namespace {

// Some TB of a preempted-TB queue may be placed now.
bool any_ready(const std::deque<sm::PreemptedTb>& q) {
  return std::any_of(q.begin(), q.end(), [](const sm::PreemptedTb& p) { return p.ready(); });
}

}  // namespace

void TbDispatcher::attach(std::vector<sm::Sm*> sms) {
  sms_ = std::move(sms);
  off_chip_.assign(sms_.size(), 0);
  if (policy_->fault_aware()) loans_.assign(sms_.size(), Loan{});
}

bool TbDispatcher::wants_fault_switch(uint32_t sm, const sm::KernelInstance& k) {
  const Running& r = running(k);
  // TB switching on fault (thesis 6.4.1; off with extra_tbs = 0, when only
  // loans switch TBs out): a TB whose faults are serviced takes the place;
  // else a new one, while the SM's TBs waiting off-chip are fewer than its limit.
  const uint32_t extra_tbs = sms_[sm]->params().fault_pipeline.extra_tbs;
  if (extra_tbs > 0 && any_ready(r.preempted)) return true;
  // Fault-aware: another kernel before new TBs of this one, which would most
  // likely wait for the same migrations ("many warps ... fault on the same
  // page"; "some benchmarks are data-transfer bound", section 7.2.3).
  if (!loans_.empty() && lend_on_fault(sm)) return true;
  return r.next_tb < r.tbs_to_run() && off_chip_[sm] < extra_tbs;
}

bool TbDispatcher::lend_on_fault(uint32_t sm) {
  Loan& loan = loans_[sm];
  // Lent already: only the borrower's TBs are there, and its own rules hold.
  if (loan.borrower != kNoLoan) return false;
  sm::Sm& s = *sms_[sm];
  for (const Running* b : active_) {
    const sm::KernelInstance& bk = *b->kernel;
    if (s.resident_tbs(bk.id) > 0 || !bk.may_use_sm(sm)) continue;
    if (!reserved_for_events_.empty() && reserved_for_events_[sm] != bk.event) continue;
    if (b->next_tb >= b->tbs_to_run() && !any_ready(b->preempted)) continue;  // nothing to place
    if (!s.fault_idle()) return false;
    const Cycle now = engine().cycle(domain());
    loan = {bk.id, bk.key, now, {}};
    for (const Running* o : active_) {
      s.resident_tbs(o->kernel->id, resident_scratch_);
      for (const sm::ResidentTb& t : resident_scratch_)
        if (!t.preempting) loan.waiting.emplace_back(o->kernel->id, t.index);
    }
    fault_loans_[bk.key].add();
    s.vacate_on_fault(now);  // the asking TB too: every TB there leaves as on a fault
    wake();
    return true;
  }
  return false;
}

void TbDispatcher::end_loan(Loan& loan, Cycle now) {
  fault_loan_cycles_[loan.key].add(now - loan.since);
  loan = Loan{};
}

void TbDispatcher::vacated_tb_ready(uint32_t sm, uint32_t kernel_id, uint64_t tb, Cycle now) {
  if (loans_.empty()) return;
  Loan& loan = loans_[sm];
  auto it = std::find(loan.waiting.begin(), loan.waiting.end(), std::pair{kernel_id, tb});
  if (it == loan.waiting.end()) return;
  loan.waiting.erase(it);
  if (!loan.waiting.empty()) return;
  end_loan(loan, now);
  repartition_pending_ = true;  // the next tick takes the borrower's TBs back (reclaim)
  wake();
}

void TbDispatcher::end_loans_to(uint32_t kernel_id, Cycle now) {
  for (Loan& loan : loans_)
    if (loan.borrower == kernel_id) end_loan(loan, now);
}

uint32_t TbDispatcher::keep(const ActiveKernel& k, uint32_t sm) const {
  if (!loans_.empty() && loans_[sm].borrower == k.kernel->id) return SharingPolicy::kUnlimited;
  return policy_->keep(k, sm);
}

void TbDispatcher::faults_serviced(uint32_t, uint32_t kernel_id, uint64_t tb_index) {
  const Cycle now = engine().wake_cycle(domain());
  for (Running* r : active_) {
    if (r->kernel->id != kernel_id) continue;
    for (sm::PreemptedTb& p : r->preempted)
      if (p.index == tb_index) {
        p.faults_pending = false;
        if (p.fault_sm >= 0) vacated_tb_ready(uint32_t(p.fault_sm), kernel_id, tb_index, now);
      }
  }
  // It may resume where a TB is free, or take the place of one waiting for faults.
  wake();
  for (sm::Sm* s : sms_) s->wake();
}

}  // namespace gpumux::frontend
