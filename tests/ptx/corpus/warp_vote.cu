// Warp-level voting and matching: ballots, all/any, match, activemask, and the
// bit-manipulation intrinsics typically used with them (popc, ffs, clz, brev).
extern "C" __global__ void stream_compact(const int* in, int* out, int* count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  bool keep = i < n && v > 0;
  unsigned ballot = __ballot_sync(0xffffffffu, keep);
  unsigned lane = threadIdx.x & 31;
  int warp_base = 0;
  if (lane == 0) warp_base = atomicAdd(count, __popc(ballot));
  warp_base = __shfl_sync(0xffffffffu, warp_base, 0);
  if (keep) out[warp_base + __popc(ballot & ((1u << lane) - 1))] = v;
}

extern "C" __global__ void vote_flags(const float* x, int* flags, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? x[i] : 0.0f;
  int all_pos = __all_sync(0xffffffffu, v > 0.0f);
  int any_nan = __any_sync(0xffffffffu, isnan(v));
  int uni = __uni_sync(0xffffffffu, v == 1.0f);
  if ((threadIdx.x & 31) == 0) flags[i / 32] = all_pos | (any_nan << 1) | (uni << 2);
}

extern "C" __global__ void match_groups(const int* keys, unsigned* leaders, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned active = __activemask();
  unsigned peers = __match_any_sync(active, keys[i]);
  int pred;
  unsigned all = __match_all_sync(active, keys[i] & 1, &pred);
  int leader = __ffs(peers) - 1;
  leaders[i] = leader + (__clz(peers) << 8) + (__brev(peers) & 0xff0000) + (pred ? all : 0);
}

extern "C" __global__ void lanemask_info(unsigned* out) {
  unsigned lt, ge, lane, warpid, smid;
  asm volatile("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
  asm volatile("mov.u32 %0, %%lanemask_ge;" : "=r"(ge));
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  asm volatile("mov.u32 %0, %%warpid;" : "=r"(warpid));
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  unsigned dyn, tot, env0;
  asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dyn));
  asm volatile("mov.u32 %0, %%total_smem_size;" : "=r"(tot));
  asm volatile("mov.u32 %0, %%envreg3;" : "=r"(env0));
  unsigned long long gt;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(gt));
  out[threadIdx.x] = lt ^ ge ^ lane ^ warpid ^ (smid & 0) ^ dyn ^ tot ^ env0 ^ unsigned(gt & 0);
}
