// Attention-kernel rates from kernel-level measurements (data/kernels/
// attention.json: FlashAttention-3 paper Fig. 5–6 on H100 for FlashAttention-2,
// cuDNN and FlashAttention-3; a FlashAttention-2 measurement on A100). What is
// derived rather than measured is listed in that file's "derived" array and in
// the comments below.
#include "estimate/kernels/attention_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/embedded_data.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/step_time.hpp"
#include "gpuplan/units.hpp"

namespace gpuplan {
namespace {

struct Table {
  std::string kernel, architecture, reference_gpu, pass, source;
  bool burst = true;                      // timed in a short burst at the boost clock (`clock` field)
  double head_dim = 128;
  std::vector<double> seq, causal, full;  // TFLOP/s at each key length; causal may be empty
  std::vector<double> wave_fill;          // the timed grid's last-wave fill on the reference GPU at each length; empty: grid not stated
  double reference_peak_flop_per_s = 0;   // the reference GPU's dense 16-bit peak, looked up once at load
};

const std::vector<Table>& tables() {
  static const std::vector<Table> all = [] {
    std::vector<Table> out;
    for (const auto& f : embedded_files()) {
      if (f.path != "kernels/attention.json") continue;
      const auto doc = nlohmann::json::parse(f.content);
      for (const auto& j : doc.at("tables")) {
        Table t;
        t.kernel = j.at("kernel").get<std::string>();
        t.architecture = j.at("architecture").get<std::string>();
        t.reference_gpu = j.at("reference_gpu").get<std::string>();
        t.pass = j.at("pass").get<std::string>();
        t.source = j.at("source").get<std::string>();
        const std::string clock = j.at("clock").get<std::string>();
        if (clock != "burst" && clock != "sustained") {
          throw InputError("kernels/attention.json clock", "is \"" + clock + "\"; allowed: burst, sustained",
                           "kernels/attention.json 的 clock 为 \"" + clock + "\"；只能是 burst 或 sustained。");
        }
        t.burst = clock == "burst";
        t.head_dim = j.at("head_dim").get<double>();
        t.seq = j.at("seq").get<std::vector<double>>();
        t.full = j.at("full_tflops").get<std::vector<double>>();
        if (j.contains("causal_tflops")) t.causal = j.at("causal_tflops").get<std::vector<double>>();
        if (j.contains("thread_blocks")) {
          const auto blocks = j.at("thread_blocks").get<std::vector<double>>();
          if (blocks.size() != t.seq.size()) {
            throw InputError("kernels/attention.json thread_blocks", "needs one entry per seq entry",
                             "kernels/attention.json 的 thread_blocks 必须与 seq 一一对应。");
          }
          const double units = find_gpu(t.reference_gpu).compute_units;
          for (double b : blocks) t.wave_fill.push_back(b / (std::ceil(b / units) * units));
        }
        const GpuSpec& ref = find_gpu(t.reference_gpu);
        t.reference_peak_flop_per_s = ref.has(Precision::kBf16) ? ref.peak(Precision::kBf16) : ref.peak(Precision::kFp16);
        out.push_back(std::move(t));
      }
    }
    return out;
  }();
  return all;
}

// Piecewise-linear in log(key length), clamped to the measured range.
double at_length(const std::vector<double>& seq, const std::vector<double>& v, double len) {
  if (len <= seq.front()) return v.front();
  if (len >= seq.back()) return v.back();
  for (size_t i = 1; i < seq.size(); ++i) {
    if (len <= seq[i]) {
      const double t = (std::log(len) - std::log(seq[i - 1])) / (std::log(seq[i]) - std::log(seq[i - 1]));
      return v[i - 1] + t * (v[i] - v[i - 1]);
    }
  }
  return v.back();
}

const Table* find(const std::string& kernel, const std::string& arch, const std::string& pass, double head_dim) {
  const Table* best = nullptr;
  for (const Table& t : tables()) {
    if (t.kernel != kernel || t.architecture != arch || t.pass != pass) continue;
    if (!best || std::abs(t.head_dim - head_dim) < std::abs(best->head_dim - head_dim)) best = &t;
  }
  return best;
}

// The table a kernel uses on an architecture. SDPA is PyTorch's FlashAttention-2
// backend (pytorch/pytorch#142132: SDPA at FA2's rate on H100 in 2.6 nightlies;
// cuDNN opt-in since pytorch/pytorch#138522). FlashAttention-3 needs Hopper
// (Shah et al. 2024 §1) and cuDNN has no measured table off Hopper: both use
// FlashAttention-2's there. Ada runs the Ampere kernels (sm_80 code paths of
// flash-attention); an architecture with no measurement borrows Hopper's table
// as a fraction of peak (an assumption the basis text states). Ascend's
// npu_fusion_attention has no measured table: it takes FlashAttention-2's,
// which is what the same tiled, score-free algorithm runs at elsewhere.
struct Choice { std::string kernel, arch; bool borrowed = false; };
Choice choose(const GpuSpec& g, AttentionKernel k) {
  std::string kernel = k == AttentionKernel::kFlash3 ? "flash3" : k == AttentionKernel::kCudnn ? "cudnn" : "flash2";
  std::string arch = g.architecture;  // data/gpus.json
  bool borrowed = false;
  if (arch == "ada") arch = "ampere";
  if (arch != "ampere" && arch != "hopper") { arch = "hopper"; borrowed = true; }
  if (arch == "ampere") kernel = "flash2";
  return {kernel, arch, borrowed};
}

}  // namespace

double attention_rate_flop_per_s(const GpuSpec& g, AttentionKernel k, AttentionPass pass, bool causal, double head_dim,
                                 double key_len) {
  const Choice c = choose(g, k);
  // Head dims measured: 128 and 256 (Hopper forward), 128 (backward, Ampere).
  // Below 128 the rate falls as d/(d+32) relative to 128/160: the per-tile
  // softmax and rescaling work does not shrink with d (Dao 2023, §3.1).
  const double d = std::max(16.0, head_dim);
  auto forward_at = [&](double dim, bool masked) {
    const Table* t128 = find(c.kernel, c.arch, "forward", 128);  // the nearest measured to 128
    const Table* t256 = find(c.kernel, c.arch, "forward", 256);  // the nearest measured to 256
    auto rate = [&](const Table* x) { return at_length(x->seq, masked && !x->causal.empty() ? x->causal : x->full, key_len); };
    if (dim <= 128 || t256 == t128) return rate(t128) * std::min(1.0, (dim / (dim + 32)) / (128.0 / 160.0));
    if (dim >= 256) return rate(t256);
    const double w = (dim - 128) / 128;
    return (1 - w) * rate(t128) + w * rate(t256);
  };
  double tflops = forward_at(d, causal);
  if (pass == AttentionPass::kBackward) {
    // Measured without a mask at head dim 128 on Hopper. The causal penalty is
    // the forward's causal/full ratio at that length (the same masked tiles);
    // other head dims follow the forward's head-dim ratio; Ampere (no backward
    // table) takes Hopper FA2's backward/forward ratio (0.87 at 16k, the same
    // as Dao 2023 §4.1 on A100: up to 63% of peak backward vs 73% forward).
    const Table* bwd = find(c.kernel, c.arch, "backward", 128);
    const double fwd_full_128 = forward_at(128, false);
    double bwd_full_128 = 0;
    if (bwd) {
      bwd_full_128 = at_length(bwd->seq, bwd->full, key_len);
    } else {
      const Table* hb = find("flash2", "hopper", "backward", 128);
      const Table* hf = find("flash2", "hopper", "forward", 128);
      bwd_full_128 = fwd_full_128 * at_length(hb->seq, hb->full, key_len) / at_length(hf->seq, hf->full, key_len);
    }
    tflops = bwd_full_128 * (forward_at(d, causal) / fwd_full_128);
  }
  // Carried to this GPU by its dense 16-bit peak over the reference part's,
  // and by its power limit (the tables ran at the reference part's nominal one).
  const Table* ref = find(c.kernel, c.arch, "forward", 128);
  const double peak = g.has(Precision::kBf16) ? g.peak(Precision::kBf16) : g.peak(Precision::kFp16);
  return tflops * kTera * (peak / ref->reference_peak_flop_per_s) * power_clock_factor(g);
}

double attention_table_wave_fill(const GpuSpec& g, AttentionKernel k, AttentionPass pass, double head_dim, double key_len) {
  // The grid a table was timed at leaves its last wave partly idle on the
  // reference GPU (FA3 §4.1's 2,048 blocks on an H100's 132 SMs: 16 waves,
  // the last 52% full, 97.0% overall), so the rate it reports holds that loss.
  // The rate comes from the backward table where one exists, else from the
  // forward one (Ampere's backward is the forward × a Hopper ratio in which
  // both grids' fills cancel).
  const Choice c = choose(g, k);
  const Table* t = pass == AttentionPass::kBackward ? find(c.kernel, c.arch, "backward", head_dim) : nullptr;
  if (!t) t = find(c.kernel, c.arch, "forward", head_dim);
  if (!t || t->wave_fill.empty()) return 1.0;
  return at_length(t->seq, t->wave_fill, key_len);
}

double attention_training_rate_flop_per_s(const GpuSpec& g, AttentionKernel k, AttentionPass pass, bool causal,
                                          double head_dim, double key_len) {
  // A training step is a saturated kernel stream at the power limit: a rate
  // timed in a short burst runs at the sustained clock there, as the GEMMs do.
  const Choice c = choose(g, k);
  const Table* ref = find(c.kernel, c.arch, "forward", 128);
  const double clock = ref->burst ? sustained_over_burst(g) : 1.0;
  return attention_rate_flop_per_s(g, k, pass, causal, head_dim, key_len) * clock;
}

AttentionRateSource attention_rate_source(const GpuSpec& g, AttentionKernel k) {
  AttentionRateSource out;
  out.kernel = k;
  if (k == AttentionKernel::kMaterialised) return out;  // GEMMs and HBM streaming: no table
  const Choice c = choose(g, k);
  const Table* ref = find(c.kernel, c.arch, "forward", 128);
  out.table_kernel = c.kernel;
  out.reference_gpu = ref->reference_gpu;
  out.source = ref->source;
  out.borrowed = c.borrowed;
  return out;
}

}  // namespace gpuplan
