// MUMmerGPU-style exact matching of many short DNA reads against one
// reference, one thread per read. The host flattens a suffix tree of the
// reference (bases coded 0-3, terminator 4) into two int4 per node:
//   kids = child index per base A, C, G, T (-1: none)
//   info = {edge start, edge end (exclusive) into the reference,
//           string depth of the node, suffix link}
// A node's path label occurs in the reference at info.y - info.z.
//
// For every position i of its read the thread computes the longest prefix of
// read[i..] that occurs in the reference (matching statistics) and where. As
// MUMmerGPU does, it does not restart from the root at each position: after
// the longest match at i, it follows the suffix link of the deepest node above
// the match end and descends again by skip/count (comparing only the string
// depths of the nodes on the way, whose labels are known to match) to the end
// of read[i+1 .. i+match), then extends character by character. Every step is
// a dependent load of a node or a reference byte at a data-dependent address,
// different for every lane of a warp: uncoalesced, divergent pointer chasing.
// Each position's result is one word, (reference position << 7) | length
// (reads are at most 127 bases); matches shorter than min_match are not
// reported (0).

__device__ __forceinline__ int kid(const int4* __restrict__ tree, int v, int base) {
  const int4 k = tree[2 * v];
  return base == 0 ? k.x : base == 1 ? k.y : base == 2 ? k.z : k.w;
}

extern "C" __global__ void mummer_match(const int4* __restrict__ tree,
                                        const unsigned char* __restrict__ ref,
                                        const unsigned char* __restrict__ reads,
                                        const int* __restrict__ read_start, int num_reads,
                                        int min_match, int* __restrict__ match) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= num_reads) return;
  const int first = read_start[r], len = read_start[r + 1] - first;
  const unsigned char* q = reads + first;

  // State between positions: read[i .. i+d) is matched, v is the deepest node
  // at string depth <= d on its path (vi its info), and when d is deeper than
  // v the match ends inside the edge to `child` (ci its info).
  int v = 0, d = 0, child = -1;
  int4 vi = tree[1], ci = vi;
  for (int i = 0; i < len; ++i) {
    for (;;) {
      if (child < 0) {  // at node v: pick the edge of the next read base
        if (i + d >= len) break;
        child = kid(tree, v, q[i + d]);
        if (child < 0) break;
        ci = tree[2 * child + 1];
      }
      // Compare the edge label past what is already matched.
      int p = ci.x + (d - vi.z);
      while (p < ci.y && i + d < len && ref[p] == q[i + d]) ++p, ++d;
      if (p < ci.y) break;  // mismatch or end of read inside the edge
      v = child, vi = ci, child = -1;
    }
    const int at = child >= 0 ? ci.y - ci.z : vi.y - vi.z;
    match[first + i] = d >= min_match ? (at << 7) | d : 0;
    if (d == 0) continue;  // stays at the root

    // read[i+1 .. i+d) is in the tree: jump by the suffix link (the root's is
    // itself) and skip down by string depths alone.
    --d;
    v = vi.w;
    vi = tree[2 * v + 1];
    child = -1;
    while (vi.z < d) {
      const int c = kid(tree, v, q[i + 1 + vi.z]);
      const int4 cinfo = tree[2 * c + 1];
      if (cinfo.z > d) {
        child = c, ci = cinfo;
        break;
      }
      v = c, vi = cinfo;
    }
  }
}
