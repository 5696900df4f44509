// mummergpu: exact matching of short DNA reads against a reference through
// its suffix tree, one thread per read (MUMmerGPU's structure): the host
// builds the tree and flattens it; each thread walks it for every position
// of its read, moving between positions by suffix links.
#include <algorithm>
#include <array>
#include <cstring>
#include <numeric>

#include "common/host_util.h"
#include "embedded_ptx.h"
#include "workload.h"

namespace gpumux::workloads {
namespace {

constexpr uint8_t kEnd = 4;  // terminator code after A, C, G, T = 0..3
constexpr int kLenBits = 7;  // result word: (position << 7) | length
constexpr int kMinMatch = 20;  // MUMmerGPU's default minimum match length as we recall it (not checked)
constexpr int kMinRead = 25, kMaxRead = 100;
constexpr uint32_t kBlock = 128;  // reads per TB: several TBs per SM at medium

struct Node {
  std::array<int, 5> kid{-1, -1, -1, -1, -1};  // per code, the terminator's included
  int start = 0, end = 0, depth = 0, link = 0;  // edge label text[start, end), string depth
};

// Suffix tree of text (ending in its unique terminator) by inserting every
// suffix from the root and splitting the edge where it leaves the tree:
// quadratic in the worst case, but the walks are short on DNA-like text.
std::vector<Node> build_tree(const std::vector<uint8_t>& text) {
  const int n = int(text.size());
  std::vector<Node> t(1);
  t.reserve(2 * size_t(n));
  for (int p = 0; p < n; ++p) {
    int v = 0, j = p;
    for (;;) {
      const uint8_t c = text[j];
      const int ch = t[v].kid[c];
      if (ch < 0) {
        t[v].kid[c] = int(t.size());
        t.push_back({{-1, -1, -1, -1, -1}, j, n, n - p, 0});
        break;
      }
      const int s = t[ch].start, e = t[ch].end;
      int k = 0;
      while (s + k < e && text[s + k] == text[j + k]) ++k;  // stops at the terminator
      if (s + k == e) {
        v = ch, j += k;
        continue;
      }
      // Split the edge after k characters; the new suffix leaves there.
      const int mid = int(t.size());
      Node m;
      m.start = s, m.end = s + k, m.depth = t[v].depth + k;
      m.kid[text[s + k]] = ch;
      m.kid[text[j + k]] = mid + 1;
      t[ch].start = s + k;
      t[v].kid[c] = mid;
      t.push_back(m);
      t.push_back({{-1, -1, -1, -1, -1}, j + k, n, n - p, 0});
      break;
    }
  }
  // Suffix links: the node of a label x.alpha links to the node of alpha,
  // which exists in a suffix tree; skip/count down to it from the root.
  for (size_t v = 1; v < t.size(); ++v) {
    if (t[v].depth == 0 || t[v].end == n) continue;  // root, leaves: never followed
    const int label = t[v].end - t[v].depth, want = t[v].depth - 1;
    int x = 0;
    while (t[x].depth < want) x = t[x].kid[text[label + 1 + t[x].depth]];
    t[v].link = x;
  }
  return t;
}

// The device layout: nodes renumbered breadth-first (the top levels, which
// every walk visits, packed together), two int4 each: the A/C/G/T children
// (the terminator's leaves are never reached by a read) and
// {start, end, depth, suffix link}.
std::vector<int> flatten(const std::vector<Node>& t) {
  std::vector<int> order, id(t.size(), -1);
  order.reserve(t.size());
  order.push_back(0);
  id[0] = 0;
  for (size_t h = 0; h < order.size(); ++h)
    for (int b = 0; b < 4; ++b)
      if (int c = t[order[h]].kid[b]; c >= 0) id[c] = int(order.size()), order.push_back(c);
  std::vector<int> flat(order.size() * 8);
  for (size_t k = 0; k < order.size(); ++k) {
    const Node& v = t[order[k]];
    int* o = &flat[k * 8];
    for (int b = 0; b < 4; ++b) o[b] = v.kid[b] < 0 ? -1 : id[v.kid[b]];
    o[4] = v.start, o[5] = v.end, o[6] = v.depth, o[7] = id[v.link];
  }
  return flat;
}

// A random genome-like reference: uniform bases, with about 5% of it copies
// (1% mutated) of earlier segments, so that some reads match several places.
std::vector<uint8_t> make_reference(Rng& rng, int n) {
  std::vector<uint8_t> ref(n);
  for (int i = 0; i < n;) {
    if (i > 1000 && rng.below(1000) < 2) {
      const int len = std::min(n - i, 50 + int(rng.below(451)));
      const int from = int(rng.below(uint32_t(i - len)));
      for (int k = 0; k < len; ++k, ++i) ref[i] = rng.below(100) == 0 ? uint8_t(rng.below(4)) : ref[from + k];
    } else {
      ref[i++] = uint8_t(rng.below(4));
    }
  }
  return ref;
}

// Longest prefix of q[0, len) in the tree and one of its positions, walking
// from the root (the CPU reference does not use suffix links).
int longest_from_root(const std::vector<Node>& t, const std::vector<uint8_t>& text, const uint8_t* q,
                      int len, int& at) {
  int v = 0, d = 0, lower = 0;
  while (d < len) {
    const int c = t[v].kid[q[d]];
    if (c < 0) break;
    lower = c;
    int p = t[c].start;
    while (p < t[c].end && d < len && text[p] == q[d]) ++p, ++d;
    if (p < t[c].end) break;
    v = c;
  }
  at = t[lower].end - t[lower].depth;
  return d;
}

// An independent check of the tree: the longest prefix of x[0, m) in the
// reference from its suffix array (sa: suffix starts in order, the
// terminator sorting last), the longer common prefix of the two suffixes
// around x's insertion point.
int longest_by_suffix_array(const std::vector<int>& sa, const std::vector<uint8_t>& text,
                            const uint8_t* x, int m) {
  auto common = [&](int s) {
    int k = 0;
    while (k < m && text[s + k] == x[k]) ++k;  // the terminator matches no base
    return k;
  };
  auto it = std::partition_point(sa.begin(), sa.end(), [&](int s) {
    const int k = common(s);
    return k < m && text[s + k] < x[k];
  });
  int best = 0;
  if (it != sa.end()) best = common(*it);
  if (it != sa.begin()) best = std::max(best, common(*(it - 1)));
  return best;
}

CheckResult run(runtime::Context& ctx, runtime::Module& mod, Size size, uint64_t seed) {
  const int ref_len = host::by_size(size, 4000, 50000, 1000000, 4000000);
  const int num_reads = host::by_size(size, 256, 4096, 32768, 131072);
  const int passes = host::passes(size, 2);
  Rng rng(seed);
  std::vector<uint8_t> text = make_reference(rng, ref_len);
  text.push_back(kEnd);
  const std::vector<Node> tree = build_tree(text);

  // Reads: 90% copies of reference windows with 2% of their bases redrawn at
  // random (point mutations end the exact matches), 10% random sequence.
  std::vector<uint8_t> reads;
  std::vector<int> read_start{0};
  for (int r = 0; r < num_reads; ++r) {
    const int len = kMinRead + int(rng.below(kMaxRead - kMinRead + 1));
    const bool sampled = rng.below(10) != 0;
    const int from = int(rng.below(uint32_t(ref_len - len + 1)));
    for (int k = 0; k < len; ++k)
      reads.push_back(sampled && rng.below(50) != 0 ? text[from + k] : uint8_t(rng.below(4)));
    read_start.push_back(int(reads.size()));
  }
  const size_t total = reads.size();

  runtime::DevPtr d_tree = ctx.malloc_copy(flatten(tree)), d_ref = ctx.malloc_copy(text),
                  d_reads = ctx.malloc_copy(reads), d_start = ctx.malloc_copy(read_start);
  runtime::DevPtr d_match = ctx.malloc(total * sizeof(int));
  runtime::Kernel k = mod.kernel("mummer_match");
  // Every pass matches the same reads again: the same results. (At medium two
  // passes, so that the kernel outlasts the copy of the tree.)
  for (int p = 0; p < passes; ++p)
    host::launch(ctx, k, {host::blocks_for(num_reads, kBlock)}, {kBlock}, d_tree, d_ref, d_reads,
                 d_start, num_reads, kMinMatch, d_match);
  const std::vector<int> got = ctx.read<int>(d_match, total);
  for (runtime::DevPtr p : {d_tree, d_ref, d_reads, d_start, d_match}) ctx.free(p);

  // The lengths must equal the CPU's longest matches exactly; a position may
  // be any occurrence, so it is checked against the reference itself.
  std::vector<int> got_len(total), want_len(total);
  size_t reported = 0;
  for (int r = 0; r < num_reads; ++r)
    for (int i = read_start[r]; i < read_start[r + 1]; ++i) {
      int at = 0;
      const int len = longest_from_root(tree, text, &reads[i], read_start[r + 1] - i, at);
      want_len[i] = len >= kMinMatch ? len : 0;
      got_len[i] = got[i] & ((1 << kLenBits) - 1);
      if (got_len[i] == 0) {
        if (got[i] != 0) return {false, fmt::format("match[{}] = {:#x}: no length but a position", i, got[i])};
        continue;
      }
      const int pos = got[i] >> kLenBits;
      if (pos < 0 || pos + got_len[i] > ref_len ||
          std::memcmp(&text[pos], &reads[i], size_t(got_len[i])) != 0)
        return {false, fmt::format("match[{}]: length {} at reference {} does not match the read", i,
                                   got_len[i], pos)};
      ++reported;
    }
  CheckResult r = check_exact(got_len, want_len, "match length");
  if (!r.passed) return r;

  // Both walks above share the tree: check the CPU's lengths on a sample of
  // reads (all at tiny) against a suffix array built by sorting.
  std::vector<int> sa(ref_len);
  std::iota(sa.begin(), sa.end(), 0);
  std::sort(sa.begin(), sa.end(), [&](int a, int b) {
    int k = 0;
    while (text[a + k] == text[b + k]) ++k;  // distinct suffixes differ by the terminator
    return text[a + k] < text[b + k];
  });
  const int stride = std::max(1, num_reads / 2048);
  for (int rd = 0; rd < num_reads; rd += stride)
    for (int i = read_start[rd]; i < read_start[rd + 1]; ++i) {
      const int len = longest_by_suffix_array(sa, text, &reads[i], read_start[rd + 1] - i);
      if (want_len[i] != (len >= kMinMatch ? len : 0))
        return {false, fmt::format("CPU tree walk gives {} at read position {}, suffix array {}",
                                   want_len[i], i, len)};
    }
  if (r.passed) r.detail += fmt::format(", {} matches of >= {} bases", reported, kMinMatch);
  return r;
}

}  // namespace

const WorkloadSpec& mummergpu_workload() {
  static const WorkloadSpec spec{
      "mummergpu",
      "MUMmerGPU: longest exact matches of short DNA reads in a reference's suffix tree, a thread "
      "per read walking flattened nodes with suffix links",
      "memory",
      embedded::mummergpu_ptx,
      {"4000-base reference, 256 reads of 25-100 bases", "50000-base reference, 4096 reads, 2 passes",
       "1M-base reference, 32768 reads", "4M-base reference, 131072 reads"},
      run};
  return spec;
}

}  // namespace gpumux::workloads
