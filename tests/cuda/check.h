// Shared by the CUDA test programs of tests/cuda: each program checks its own
// results and exits 0 only if every check held.
#pragma once
#include <cstdio>
#include <cstdlib>

#define CHECK(cond)                                                      \
  do {                                                                   \
    if (!(cond)) {                                                       \
      std::fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); \
      std::exit(1);                                                      \
    }                                                                    \
  } while (0)

#define CHECK_CUDA(call) CHECK_ERR(call, cudaSuccess)

#define CHECK_ERR(call, expected)                                                            \
  do {                                                                                       \
    cudaError_t e_ = (call);                                                                 \
    if (e_ != (expected)) {                                                                  \
      std::fprintf(stderr, "FAIL %s:%d: %s returned %s (%s), expected %s\n", __FILE__, __LINE__, \
                   #call, cudaGetErrorName(e_), cudaGetErrorString(e_), #expected);          \
      std::exit(1);                                                                          \
    }                                                                                        \
  } while (0)
