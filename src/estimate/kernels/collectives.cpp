// Collective costs with the α–β model.
//
// NCCL's ring algorithms move 2(n−1)/n of the buffer through each GPU for an
// all-reduce and (n−1)/n for a reduce-scatter or all-gather; "bus bandwidth"
// is defined so that time = factor · bytes / busbw (NCCL tests,
// doc/PERFORMANCE.md). Each of the 2(n−1) or (n−1) ring steps also pays a
// latency α. Across nodes NCCL reduces inside the node first, so the network
// carries only 1/local of the data per GPU (hardware_facts §2d: inter-node
// all-reduce costs ~2× intra-node at large payloads, not 18×).
#include <algorithm>
#include <cmath>

#include "gpuplan/step_time.hpp"

namespace gpuplan {

double ring_allreduce_s(double bytes, int n, const Link& link) {
  if (n <= 1 || bytes <= 0) return 0;
  return 2.0 * (n - 1) / n * bytes / link.bytes_per_s + 2.0 * (n - 1) * link.latency_s;
}

// The curve is nccl-tests' bus bandwidth (time = 2(n−1)/n · bytes / busbw) on a
// full node; taken at another n as nccl-tests' convention intends (busbw
// independent of n for a ring).
std::optional<double> measured_allreduce_s(const GpuSpec& g, double bytes, int n) {
  const auto& c = g.allreduce_curve;
  if (c.empty()) return std::nullopt;
  if (n <= 1 || bytes <= 0) return 0.0;
  const double factor = 2.0 * (n - 1) / n;
  if (bytes <= c.front().bytes) return factor * c.front().bytes / c.front().busbw_bytes_per_s;
  if (bytes >= c.back().bytes) return factor * bytes / c.back().busbw_bytes_per_s;
  size_t i = 1;
  while (c[i].bytes < bytes) ++i;
  const double t = std::log(bytes / c[i - 1].bytes) / std::log(c[i].bytes / c[i - 1].bytes);
  const double busbw = std::exp(std::log(c[i - 1].busbw_bytes_per_s) + t * std::log(c[i].busbw_bytes_per_s / c[i - 1].busbw_bytes_per_s));
  return factor * bytes / busbw;
}

double ring_reduce_scatter_s(double bytes, int n, const Link& link) {
  if (n <= 1 || bytes <= 0) return 0;
  return static_cast<double>(n - 1) / n * bytes / link.bytes_per_s + (n - 1) * link.latency_s;
}

double ring_allgather_s(double bytes, int n, const Link& link) { return ring_reduce_scatter_s(bytes, n, link); }

double all_to_all_s(double bytes, int n, const Link& link) {
  if (n <= 1 || bytes <= 0) return 0;
  return static_cast<double>(n - 1) / n * bytes / link.bytes_per_s + (n - 1) * link.latency_s;
}

double hierarchical_all_to_all_s(double bytes, int n, int local, const Link& intra, const Link& inter) {
  if (n <= 1 || bytes <= 0) return 0;
  local = std::clamp(local, 1, n);
  if (local >= n) return all_to_all_s(bytes, n, intra);
  // NCCL's all-to-all is one send and one receive per peer (ncclSend/ncclRecv
  // grouped: nccl-tests src/alltoall.cu), and each peer pair takes its own
  // transport: NVLink (P2P) inside the node, the NIC across nodes (NCCL
  // docs, "P2P and NET transports"). Of a rank's buffer, (local−1)/n goes to
  // peers of its node and (n−local)/n to the others; the two run at once.
  const double nvlink = static_cast<double>(local - 1) / n * bytes / intra.bytes_per_s + (local - 1) * intra.latency_s;
  const double network = static_cast<double>(n - local) / n * bytes / inter.bytes_per_s + (n - local) * inter.latency_s;
  return std::max(nvlink, network);
}

double per_node_all_to_all_s(double token_bytes, double remote_nodes, double copies, int n, int local, const Link& intra, const Link& inter) {
  if (n <= 1 || token_bytes <= 0) return 0;
  local = std::clamp(local, 1, n);
  // DeepSeek-V3 §3.2.2 (and DeepEP's internode kernels): a token bound for
  // experts on another node crosses the network once, to the GPU of the same
  // in-node index there, which forwards it over NVLink to the experts' GPUs.
  // The NIC carries `remote_nodes` copies of each token, NVLink the `copies`
  // routed copies less those landing on the receiving GPU itself; both at once.
  const int nodes = (n + local - 1) / local;
  const double network = remote_nodes * token_bytes / inter.bytes_per_s + (nodes - 1) * inter.latency_s;
  const double nvlink = copies * static_cast<double>(local - 1) / local * token_bytes / intra.bytes_per_s + (local - 1) * intra.latency_s;
  return std::max(network, nvlink);
}

// Both tables count a rank's bytes as tokens × destination nodes, its own
// node included, × hidden × bytes per element ("algorithm bandwidth": DeepEP
// tests/test_internode.py; HybridEP tests/utils.py does the same "to align
// with DeepEP"; a DeepEP maintainer in deepseek-ai/DeepEP#285: EP 16's real IB
// rate is about 43 × 0.5). With routing spread evenly over `nodes` nodes the
// remote share of those copies is (nodes − 1)/nodes, so the rate at which the
// remote copies move is the published one times that share.
//   DeepEP normal kernels, H800 + CX7 400 Gb/s per GPU, 4,096 tokens, hidden
//   7,168, top-4 groups · top-8, FP8 dispatch / BF16 combine (README, commit
//   3b1045db, 2025-04-22): EP 16 43 / 43, EP 32 58 / 57, EP 64 51 / 50 GB/s.
//   HybridEP, H100, 4,096 tokens, hidden 7,168, top-8, random uniform routing,
//   8 local experts, Torch API (preprocessing included, as Megatron calls it),
//   BF16 dispatch (Megatron's fused_a2a asserts no FP8 dispatch with it) and
//   its combine, 16 SMs, the table's most (Megatron-Bridge's presets give it
//   32): EP 16 54.47 / 53.35, EP 32 47.36 / 52.53, EP 64 41.24 / 46.57 GB/s
//   (deepseek-ai/DeepEP docs/README_Hybrid-EP.md, H100 table, @41cad944; the
//   table states no NIC: DGX H100's one 400 Gb/s NIC per GPU assumed).
DispatchNetworkRates per_node_dispatch_rates(bool hybridep, int ep, int nodes, double nic_bytes_per_s) {
  if (nodes <= 1 || nic_bytes_per_s <= 0) return {};
  struct Row { int ep; double dispatch, combine; };
  static constexpr Row kDeepEp[] = {{16, 43e9, 43e9}, {32, 58e9, 57e9}, {64, 51e9, 50e9}};
  static constexpr Row kHybridEp[] = {{16, 54.47e9, 53.35e9}, {32, 47.36e9, 52.53e9}, {64, 41.24e9, 46.57e9}};
  const Row* row = hybridep ? &kHybridEp[0] : &kDeepEp[0];
  for (const Row& r : hybridep ? kHybridEp : kDeepEp) {
    if (r.ep <= ep) row = &r;  // the largest measured EP size at or below this one (the smallest if none)
  }
  const double remote_share = static_cast<double>(nodes - 1) / nodes;
  const double nic_scale = nic_bytes_per_s / 50e9;  // the measured systems' 400 Gb/s per GPU
  return {row->dispatch * remote_share * nic_scale, row->combine * remote_share * nic_scale};
}

double remote_nodes_per_token(int nodes, double k, int node_limit) {
  if (nodes <= 1 || k <= 0) return 0;
  const double nd = nodes;
  double touched = nd * (1.0 - std::pow(1.0 - 1.0 / nd, k));
  if (node_limit > 0) touched = std::min(touched, static_cast<double>(node_limit));
  return touched * (nd - 1) / nd;
}

double hierarchical_allreduce_s(double bytes, int local, int nodes, const Link& intra, const Link& inter) {
  if (nodes <= 1) return ring_allreduce_s(bytes, local, intra);
  // Reduce-scatter inside the node, all-reduce of the 1/local shard across
  // nodes (each GPU on its own NIC), all-gather inside the node.
  return ring_reduce_scatter_s(bytes, local, intra) + ring_allreduce_s(bytes / local, nodes, inter) +
         ring_allgather_s(bytes, local, intra);
}

double ring_gather_latency_s(int64_t ranks, int64_t nodes, const Link& intra, const Link& inter) {
  if (ranks <= 1) return 0;
  nodes = std::clamp<int64_t>(nodes, 1, ranks);
  return static_cast<double>(ranks - nodes) * intra.latency_s + static_cast<double>(nodes - 1) * inter.latency_s;
}

double hierarchical_reduce_scatter_s(double bytes, int local, int nodes, const Link& intra, const Link& inter) {
  if (nodes <= 1) return ring_reduce_scatter_s(bytes, local, intra);
  return ring_reduce_scatter_s(bytes, local, intra) + ring_reduce_scatter_s(bytes / local, nodes, inter);
}

}  // namespace gpuplan
