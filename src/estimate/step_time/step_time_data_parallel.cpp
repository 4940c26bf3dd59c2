// Data parallelism and ZeRO/FSDP in the step time: the gradient reduction
// (all-reduce, or reduce-scatter and all-gather with ZeRO-1/2), ZeRO-3's
// per-layer gathers with NCCL's ring latency, HSDP's replica all-reduce, and
// how much of each hides behind compute (docs/step-time.md).
#include <algorithm>

#include "model/layer_ops.hpp"
#include "estimate/step_time/step_time_internal.hpp"

namespace gpuplan::step_detail {

// Parameter tensors of one dense layer as PyTorch holds them: a weight per
// matmul of the layer's list (fused QKV and gate/up count once, as Megatron
// fuses them), a bias where the model has one, and each norm's weight (and
// bias for LayerNorm).
double param_tensors_per_layer(const ModelSpec& m) {
  double n = 0;
  for (const LayerMatmul& x : layer_matmuls(m, false)) {
    n += 1;
    const std::string name = x.name;
    if ((name == "qkv" && m.qkv_bias) || (name == "attn_out" && m.out_bias) || (name.rfind("mlp", 0) == 0 && m.mlp_bias)) n += 1;
  }
  return n + static_cast<double>(m.norms_per_layer) * (m.norm == NormKind::kLayer ? 2.0 : 1.0);
}

DataParallelCost data_parallel_cost(const Ctx& c, const DataParallelInputs& in) {
  const Layout& l = c.l;
  DataParallelCost out;
  const double dense_params = in.dense_params, expert_params = in.expert_params;
  const double layers_max = in.layers_max;
  const int64_t m = in.micro_batches;
  const int64_t dp_group = static_cast<int64_t>(l.dp) * l.cp;
  const int64_t stride = static_cast<int64_t>(l.tp) * l.cp;  // Megatron order: tp, cp, dp, pp
  int local = 1;
  if (stride < c.node) local = static_cast<int>(std::min<int64_t>(dp_group, c.node / stride));
  const int nodes = static_cast<int>(std::max<int64_t>(1, dp_group / std::max(local, 1)));
  out.dp_nodes = nodes;
  // Gradient bytes per parameter held, over the share that has gradients (LoRA:
  // the adapters), so every reduction below moves only those.
  const double gb = in.grad_bytes * in.trainable_share;
  // The experts' gradients reduce over the expert-data-parallel group,
  // tp·cp·dp / (etp·ep) ranks (dp·cp / ep unless folded), etp·ep apart.
  const int ep_group = static_cast<int>(l.expert_dp());
  out.ep_group = ep_group;
  const int64_t ep_stride = static_cast<int64_t>(l.expert_tp()) * l.ep;
  const int ep_local = l.expert_tp() == l.tp ? std::max(1, std::min(local, ep_group))
                                             : static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(ep_group, c.node / ep_stride)));
  const int ep_nodes = std::max(1, ep_group / ep_local);
  auto reduce_all = [&](double bytes_dense, double bytes_expert, bool scatter) {
    auto f = scatter ? hierarchical_reduce_scatter_s : hierarchical_allreduce_s;
    return f(bytes_dense, local, nodes, c.intra, c.inter) + f(bytes_expert, ep_local, ep_nodes, c.intra, c.inter);
  };
  auto gather_all = [&](double bytes_dense, double bytes_expert) {
    // An all-gather costs what a reduce-scatter of the same buffer costs.
    return hierarchical_reduce_scatter_s(bytes_dense, local, nodes, c.intra, c.inter) +
           hierarchical_reduce_scatter_s(bytes_expert, ep_local, ep_nodes, c.intra, c.inter);
  };
  const double eta = c.o.overlap_efficiency;
  const double bwd_last = in.stage_bwd_s;
  const double fwd_first = in.stage_fwd_s;
  // Overlap with the backward of the last micro-batch, except the last bucket
  // (the first layer's gradients, produced at the very end).
  auto overlapped = [&](double t, double window) {
    if (!l.dp_comm_overlap) return t;
    return std::max(t - eta * window, t / std::max(1.0, layers_max));
  };
  double dp_exposed = 0, dp_raw = 0, z3_exposed = 0, z3_raw = 0;
  const double compute_mb = in.compute_mb_s;  // one micro-batch on the slowest stage
  if (dp_group > 1) {
    if (l.zero_stage == 0) {
      const double t = reduce_all(dense_params * gb, expert_params * gb, false);
      dp_raw = t;
      dp_exposed = overlapped(t, bwd_last);
    } else if (l.zero_stage <= 2) {
      // ZeRO-1 (distributed optimizer): reduce-scatter the gradients, all-gather
      // the updated bf16 parameters. ZeRO-2 reduce-scatters every micro-batch.
      const double rs = reduce_all(dense_params * gb, expert_params * gb, true);
      const double ag = gather_all(dense_params * 2.0 * in.trainable_share, expert_params * 2.0 * in.trainable_share);  // the updated parameters
      if (l.zero_stage == 2 && l.zero2_per_unit) {
        // FSDP SHARD_GRAD_OP (profile zero2_mode fsdp_unit; PyTorch FSDP1
        // ShardingStrategy.SHARD_GRAD_OP, torch/distributed/fsdp/api.py:
        // "parameters are sharded outside of computation ... gradients are
        // sharded during computation"): every micro-batch all-gathers each
        // wrapped unit's bf16 parameters in its forward, keeps them through
        // the backward, and reduce-scatters each unit's gradients there. Each
        // call is one NCCL ring through every rank, as ZeRO-3's are
        // (ring_gather_latency_s), and prefetching overlaps them with the
        // micro-batch's compute.
        const double units = layers_max + 1;
        const double ring_latency = ring_gather_latency_s(dp_group, nodes, c.intra, c.inter);
        const double counted = ring_gather_latency_s(local, 1, c.intra, c.inter) + ring_gather_latency_s(nodes, nodes, c.intra, c.inter);
        const double latency_per_pass = std::max(0.0, units * ring_latency - counted);
        const double comm = ag + rs + 2 * latency_per_pass;
        const double per_mb = std::max(comm, compute_mb) + (1 - eta) * std::min(comm, compute_mb) - compute_mb;
        dp_raw = static_cast<double>(m) * comm;
        dp_exposed = l.dp_comm_overlap ? static_cast<double>(m) * per_mb : dp_raw;
      } else if (l.zero_stage == 1) {
        dp_raw = rs + ag;
        dp_exposed = overlapped(rs, bwd_last) + overlapped(ag, fwd_first);
      } else {
        dp_raw = static_cast<double>(m) * rs + ag;
        const double per_mb = std::max(rs, bwd_last) + (1 - eta) * std::min(rs, bwd_last) - bwd_last;
        dp_exposed = static_cast<double>(m - 1) * per_mb + overlapped(rs, bwd_last) + overlapped(ag, fwd_first);
      }
    } else {
      // ZeRO-3 / FSDP: every micro-batch all-gathers the bf16 parameters for the
      // forward and again for the backward (and for the recompute forward when
      // activations are fully recomputed, since the module's forward runs again),
      // then reduce-scatters the gradients; prefetching overlaps them with compute.
      const int shard = l.shard_group > 0 ? l.shard_group : static_cast<int>(dp_group);
      const int s_local = std::max(1, std::min(local, shard));
      const int s_nodes = std::max(1, shard / s_local);
      // Recomputed blocks run their forward hooks again: one more gather each.
      const double gathers = 2.0 + in.regathers;
      const double ag = hierarchical_reduce_scatter_s((dense_params + expert_params) * 2.0, s_local, s_nodes, c.intra, c.inter);
      const double rs = hierarchical_reduce_scatter_s((dense_params + expert_params) * gb, s_local, s_nodes, c.intra, c.inter);
      // The gathers and reduce-scatters are issued per layer (FSDP's unit is a
      // transformer block; ZeRO-3 fetches module by module), not once for the
      // model, and each call is one ring through every rank of the shard group
      // (ring_gather_latency_s). The hierarchical terms above already hold the
      // latency of one intra-node and one inter-node ring per pass.
      // FSDP wraps each transformer block; DeepSpeed ZeRO-3 hooks every
      // submodule (deepspeed/runtime/zero: _register_hooks_recursively) and its
      // pre-forward hook gathers that module's own parameters: the norms and
      // the linears of a block as Megatron defines them (fused QKV, output,
      // fused gate/up or first MLP linear, second MLP linear).
      const double modules = l.zero3_per_module ? static_cast<double>(c.m.norms_per_layer) + 4.0 : 1.0;
      const double units = layers_max * modules + 1;  // the layers of the stage plus embedding/head
      const double ring_latency = ring_gather_latency_s(shard, s_nodes, c.intra, c.inter);
      const double counted = ring_gather_latency_s(s_local, 1, c.intra, c.inter) + ring_gather_latency_s(s_nodes, s_nodes, c.intra, c.inter);
      const double latency_per_pass = std::max(0.0, units * ring_latency - counted);
      double comm = gathers * ag + rs + (gathers + 1) * latency_per_pass;
      if (l.zero3_gather_copies_per_rank) {
        // DeepSpeed before #1188 (v0.5.5, 2021-11) gathers each parameter tensor
        // on its own: a Python loop builds `shard` narrow() views of the flat
        // buffer (partition_parameters.py _allgather_param at v0.3.16), and
        // torch.distributed.all_gather(list) has ProcessGroupNCCL copy the
        // flattened result into each of the `shard` outputs, one copy_ launch
        // per rank (ProcessGroupNCCL::allgather, outputTensors[i][j].copy_).
        // Each gather is preceded by torch.cuda.synchronize(), so this host
        // work is serial with the step. Per rank: a Python-level view op, ~2 µs,
        // and a C++-level op, ~1 µs (pytorch/pytorch#41383, ngimel: "x*x ... is
        // approx 2 us. Approx half of it is python parsing overhead (same
        // operation called using c++ API would take about a microsecond)"),
        // plus the copy's launch (kernel_overhead_s).
        constexpr double kPythonViewS = 2e-6, kCppOpS = 1e-6;
        const double tensors = param_tensors_per_layer(c.m) * layers_max + 2;  // + embedding and final norm
        comm += gathers * tensors * static_cast<double>(shard) * (kPythonViewS + kCppOpS + c.o.kernel_overhead_s);
      }
      // A stage kept gathered under pipelining (zero3_keep_gathered: FSDP2 in
      // torch.distributed.pipelining runs every micro-batch but the last with
      // reshard_after_forward/backward off and gradient sync off) gathers once
      // and reduce-scatters once per step: spread over the m micro-batches.
      if (l.zero3_keep_gathered) comm = (ag + rs + 2 * latency_per_pass) / static_cast<double>(m);
      const double per_mb = !l.zero3_prefetch ? comm : std::max(comm, compute_mb) + (1 - eta) * std::min(comm, compute_mb) - compute_mb;
      z3_raw = static_cast<double>(m) * comm;
      z3_exposed = static_cast<double>(m) * per_mb;
      if (shard < dp_group) {
        // HSDP: all-reduce the shard's gradients across the replicas.
        const int replicas = static_cast<int>(dp_group / shard);
        const double t = ring_allreduce_s((dense_params + expert_params) * gb / shard, replicas, c.inter);
        dp_raw = t;
        dp_exposed = overlapped(t, bwd_last);
      }
    }
  }
  out.dp_exposed_s = dp_exposed;
  out.dp_raw_s = dp_raw;
  out.zero3_exposed_s = z3_exposed;
  out.zero3_raw_s = z3_raw;
  return out;
}

}  // namespace gpuplan::step_detail
