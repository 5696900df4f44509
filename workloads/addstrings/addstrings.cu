// Concatenation of string pairs into buffers from device malloc: each thread
// allocates room for its pair, copies both strings into it, and publishes the
// pointer; a second kernel gathers the results into one packed array and frees
// them. The heap's pages are first touched on the device (the thesis's
// device-malloc use case, figure 6.14).
extern "C" __global__ void concat_strings(const char* __restrict__ chars, const int* __restrict__ offsets, int pairs,
                                          char** __restrict__ results, int* __restrict__ lengths) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= pairs) return;
  const char* a = chars + offsets[2 * i];
  const char* b = chars + offsets[2 * i + 1];
  const int la = offsets[2 * i + 1] - offsets[2 * i];
  const int lb = offsets[2 * i + 2] - offsets[2 * i + 1];
  char* s = static_cast<char*>(malloc(la + lb + 1));
  results[i] = s;
  if (!s) {  // heap exhausted: the host reports it
    lengths[i] = -1;
    return;
  }
  for (int k = 0; k < la; ++k) s[k] = a[k];
  for (int k = 0; k < lb; ++k) s[la + k] = b[k];
  s[la + lb] = '\0';
  lengths[i] = la + lb;
}

// out_offsets[i] is where pair i's result goes (the prefix sum of the pairs'
// lengths, known on the host from the inputs).
extern "C" __global__ void gather_strings(char* const* __restrict__ results, const int* __restrict__ lengths,
                                          const int* __restrict__ out_offsets, int pairs, char* __restrict__ out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= pairs) return;
  const char* s = results[i];
  if (!s) return;
  const int n = lengths[i];
  for (int k = 0; k <= n; ++k) out[out_offsets[i] + k] = s[k];  // the terminator too: it proves the length
  free(const_cast<char*>(s));
}
