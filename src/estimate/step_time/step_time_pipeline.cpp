// Pipeline parallelism in the step time: each stage's time for one
// micro-batch, the slowest stage that sets the pace, the bubble and the
// point-to-point sends (docs/step-time.md).
#include <algorithm>

#include "gpuplan/layout.hpp"
#include "estimate/step_time/step_time_internal.hpp"

namespace gpuplan::step_detail {

PipelineCost pipeline_cost(const Ctx& c, double layer_fb, double embed_s, double head_fb, int64_t m) {
  const Layout& l = c.l;
  PipelineCost out;
  // Each stage's time for one micro-batch: its layers (stage_split: Megatron's
  // even or uneven split), the embedding on the first, the LM head and loss on
  // the last. The slowest sets the pace of the pipeline; the bubble is (p−1)/v
  // of the mean stage (Narayanan et al. 2021, §2.2).
  const StageSplit split = stage_split(c.m, l);
  const double p = l.pp, v = l.vp;
  double t_sum = 0;
  for (int s = 0; s < l.pp; ++s) {
    const double t = static_cast<double>(split.layers(s)) * layer_fb + (s == 0 ? embed_s : 0.0) + (s == l.pp - 1 ? head_fb : 0.0);
    t_sum += t;
    if (t > out.t_max) {
      out.t_max = t;
      out.slow = s;
    }
  }
  out.t_mean = t_sum / p;
  out.layers_slow = static_cast<double>(split.layers(out.slow));
  out.head_on = out.slow == l.pp - 1 ? 1.0 : 0.0;
  out.embed_on = out.slow == 0 ? 1.0 : 0.0;
  out.layers_max = static_cast<double>(split.max_layers());
  out.bubble_s = l.pp > 1 ? (p - 1) / v * out.t_mean : 0;
  if (l.dualpipe && l.pp > 1) {
    // DualPipe: rank i holds stages i and pp−1−i and runs half the step's
    // micro-batches through each (the two directions), so its work per
    // micro-batch is the mean of the pair and it holds both stages'
    // parameters (deepseek-ai/DualPipe dualpipe.py; V3 report §3.2.1). The
    // bubble is set where the overlapped chunk time is known (step_time.cpp).
    out.t_max = -1;
    for (int s = 0; s < l.pp / 2; ++s) {
      const int r = l.pp - 1 - s;
      const double t = (static_cast<double>(split.layers(s) + split.layers(r)) * layer_fb + (s == 0 ? embed_s + head_fb : 0.0)) / 2;
      if (t > out.t_max) {
        out.t_max = t;
        out.slow = s;
        out.layers_slow = static_cast<double>(split.layers(s) + split.layers(r)) / 2;
        out.head_on = out.embed_on = s == 0 ? 0.5 : 0.0;
      }
      out.layers_max = std::max(out.layers_max, static_cast<double>(split.layers(s) + split.layers(r)));
    }
    out.bubble_s = 0;
  }

  // Point-to-point: one activation per micro-batch per boundary each way,
  // split over the TP ranks (Narayanan 2021, §4.1 scatter/gather); across
  // nodes unless the whole tp·cp·dp block fits in one.
  if (l.pp > 1) {
    const Link link = group_link(c, static_cast<int64_t>(l.tp) * l.cp * l.dp, 2);
    const double bytes = c.tokens * static_cast<double>(c.m.hidden) * 2.0 / l.tp;
    const double t = bytes / link.bytes_per_s + link.latency_s;
    out.p2p_one_s = t;
    out.p2p_exposed_s = 2.0 * (static_cast<double>(m) * v + p - 1) * t;
    out.p2p_raw_s = 2.0 * static_cast<double>(m) * v * (p - 1) * t;
  }
  return out;
}

namespace {

// A forward and a backward micro-batch together on the slowest rank: their
// all-to-alls (and `extra_comm_s` more) against their computation, which
// meanwhile runs on the SMs the communication kernels leave (profile
// comm_sms; DeepSeek-V3 report §3.2.2: 20 of the H800's 132). The pair takes
// the longer of the two; what the computation cannot cover stays exposed.
OverlapPace overlapped_pair(const Ctx& c, const PipelineCost& pipe, const LayerCost& avg, const LayerCost& head, double extra_comm_s,
                            double rf_gemm, double rf_attn, double rf_comm) {
  const Layout& l = c.l;
  const double layers = pipe.layers_slow, head_on = pipe.head_on;
  const double ep_mb = layers * (avg.ep_f + avg.ep_b + rf_comm * avg.ep_f);
  const double comm_mb = ep_mb + extra_comm_s;
  const double units = c.g.compute_units;
  const double sm_stretch = l.comm_sms > 0 && units > l.comm_sms ? units / (units - l.comm_sms) : 1.0;
  // Only the SM-bound kernels (GEMMs, attention) slow down; streaming
  // element-wise kernels still saturate HBM on the SMs left.
  const double sm_bound = layers * (avg.gemm_f + avg.gemm_b + avg.attn_f + avg.attn_b + rf_gemm * avg.gemm_f + rf_attn * avg.attn_f) +
                          head_on * (head.gemm_f + head.gemm_b);
  const double compute_mb = pipe.t_max - ep_mb + sm_bound * (sm_stretch - 1);
  OverlapPace out;
  out.pace_s = std::max(compute_mb, comm_mb);
  out.exposed_s = std::max(0.0, comm_mb - compute_mb);
  return out;
}

}  // namespace

// DualPipe pairs chunks from its two directions; the pipeline sends (the
// activation one way, its gradient the other) go under the pair too. The
// bubble is (pp/2 − 1)(F&B + B − 3W) (deepseek-ai/DualPipe README), W the
// weight-gradient GEMMs: half the backward's GEMM time (dW beside dX, the
// same FLOPs).
OverlapPace dualpipe_pace(const Ctx& c, const PipelineCost& pipe, const LayerCost& avg, const LayerCost& head, double rc_s,
                          double rf_gemm, double rf_attn, double rf_comm) {
  OverlapPace out = overlapped_pair(c, pipe, avg, head, 2.0 * pipe.p2p_one_s, rf_gemm, rf_attn, rf_comm);
  const double layers = pipe.layers_slow, head_on = pipe.head_on;
  const double back = layers * (avg.bwd() - avg.ep_b + rc_s - rf_comm * avg.ep_f) + head_on * head.bwd();
  const double weight = 0.5 * (layers * avg.gemm_b + head_on * head.gemm_b);
  out.bubble_s = (c.l.pp / 2.0 - 1.0) * std::max(0.0, out.pace_s + back - 3.0 * weight);
  return out;
}

// Megatron-Core's combined 1F1B (pipeline_parallel/combined_1f1b.py @core_v0.14.0,
// schedules.py: the 1F1B steps run one micro-batch's forward layer by layer
// beside another's backward) pairs micro-batches in the steady state; the
// warm-up and cool-down keep the pipeline's bubble and point-to-point as they were.
OverlapPace combined_1f1b_pace(const Ctx& c, const PipelineCost& pipe, const LayerCost& avg, const LayerCost& head, double rf_gemm,
                               double rf_attn, double rf_comm) {
  OverlapPace out = overlapped_pair(c, pipe, avg, head, 0.0, rf_gemm, rf_attn, rf_comm);
  out.bubble_s = pipe.bubble_s;
  return out;
}

}  // namespace gpuplan::step_detail
