// Shared checks of multiprogrammed runs.
#pragma once

#include <gtest/gtest.h>

#include "gpumux/multitask/runner.h"

namespace gpumux::multitask::test {

// Every application ran and every run passed its CPU check.
inline void expect_all_passed(const RunResult& r) {
  for (const AppOutcome& a : r.apps) {
    EXPECT_TRUE(a.error.empty()) << a.name << ": " << a.error;
    ASSERT_FALSE(a.runs.empty()) << a.name;
    for (const AppRun& run : a.runs) EXPECT_TRUE(run.passed) << a.name << ": " << run.detail;
  }
}

}  // namespace gpumux::multitask::test
