// Pipeline parallelism in the step time: each stage's time for one
// micro-batch, the slowest stage that sets the pace, the bubble and the
// point-to-point sends (docs/step-time.md).
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

  // Point-to-point: one activation per micro-batch per boundary each way,
  // split over the TP ranks (Narayanan 2021, §4.1 scatter/gather); across
  // nodes unless the whole tp·cp·dp block fits in one.
  if (l.pp > 1) {
    const Link link = group_link(c, static_cast<int64_t>(l.tp) * l.cp * l.dp, 2);
    const double bytes = c.tokens * static_cast<double>(c.m.hidden) * 2.0 / l.tp;
    const double t = bytes / link.bytes_per_s + link.latency_s;
    out.p2p_exposed_s = 2.0 * (static_cast<double>(m) * v + p - 1) * t;
    out.p2p_raw_s = 2.0 * static_cast<double>(m) * v * (p - 1) * t;
  }
  return out;
}

}  // namespace gpuplan::step_detail
