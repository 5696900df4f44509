// Runs a check on a fresh context of the functional backend and of the
// timing model (gtx980), so that both execute the same kernels.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gpumux/gpu/gpu.h"
#include "gpumux/runtime/runtime.h"
#include "gpumux/timing/timing_backend.h"

namespace gpumux::test {

inline void on_both_backends(const std::string& app, const std::function<void(runtime::Context&)>& check) {
  {
    SCOPED_TRACE("functional backend");
    runtime::Device dev;
    check(dev.create_context(app));
  }
  SCOPED_TRACE("timing model");
  std::unique_ptr<runtime::Device> dev = timing::make_device(gpu::load_config("gtx980").values());
  check(dev->create_context(app));
}

template <class T>
std::vector<T> read_back(runtime::Context& ctx, runtime::DevPtr p, size_t n) {
  std::vector<T> v(n);
  ctx.memcpy_d2h(v.data(), p, n * sizeof(T));
  return v;
}

template <class T>
runtime::DevPtr upload(runtime::Context& ctx, const std::vector<T>& v) {
  runtime::DevPtr p = ctx.malloc(v.size() * sizeof(T));
  ctx.memcpy_h2d(p, v.data(), v.size() * sizeof(T));
  return p;
}

}  // namespace gpumux::test
