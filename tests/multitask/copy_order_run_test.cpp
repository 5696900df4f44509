// A workload's [policy] copy_order and copy_chunk_bytes reach the copy
// engine: under "priority" the high-priority application's copies wait less
// than under fcfs (Tanasic thesis 5.4: the data transfer engine ordered like
// the kernel scheduler).
#include <gtest/gtest.h>

#include <string>

#include "gpumux/core/error.h"
#include "gpumux/multitask/runner.h"
#include "gpumux/multitask/workload_file.h"
#include "multitask/run_test_util.h"

namespace gpumux::multitask {
namespace {

TEST(CopyOrderOption, ParsedFromThePolicyTableAndCheckedThere) {
  WorkloadFile w = parse_workload("[policy]\nname = \"npq\"\ncopy_order = \"priority\"\ncopy_chunk_bytes = 4096\n"
                                  "[[app]]\nbenchmark = \"pc\"\n",
                                  "w.toml");
  EXPECT_EQ(w.copies.order, frontend::CopyOrder::Priority);
  EXPECT_EQ(w.copies.chunk_bytes, 4096u);
  EXPECT_EQ(parse_workload("[[app]]\nbenchmark = \"pc\"\n", "w.toml").copies, frontend::CopyOrdering{});
  try {
    parse_workload("[policy]\nname = \"npq\"\ncopy_order = \"lifo\"\n[[app]]\nbenchmark = \"pc\"\n", "w.toml");
    FAIL() << "an unknown copy order was accepted";
  } catch (const LoadError& e) {
    EXPECT_NE(std::string(e.what()).find("copy_order"), std::string::npos) << e.what();
  }
}

// Picoseconds the copies of each application waited in the queue.
std::vector<double> copy_waits(const std::string& order) {
  WorkloadFile w = parse_workload(
      "[policy]\nname = \"npq\"\ncopy_order = \"" + order + "\"\ncopy_chunk_bytes = 65536\n"
      "[[app]]\nbenchmark = \"pc\"\nsize = \"tiny\"\n[[app]]\nbenchmark = \"vecadd\"\nsize = \"tiny\"\n"
      "[[app]]\nbenchmark = \"histo\"\nsize = \"tiny\"\npriority = 1\n",
      "w.toml");
  RunOptions o = test::no_baselines();
  RunResult r = run_workload(w, o);
  test::expect_all_passed(r);
  std::vector<double> wait(3, 0);
  for (const frontend::CopyRecord& c : r.copies)
    if (c.done) wait.at(c.app) += double(c.started - c.submitted);
  return wait;
}

TEST(CopyOrderOption, PriorityOrderShortensTheHighPriorityAppsCopyWaits) {
  std::vector<double> fcfs = copy_waits("fcfs"), priority = copy_waits("priority");
  EXPECT_GT(fcfs[2], 0.0);  // it did wait behind the others' copies
  EXPECT_LT(priority[2], fcfs[2]);
}

}  // namespace
}  // namespace gpumux::multitask
