// Time of one optimizer step for a parallel layout, from physics: every GEMM at
// its real shape against the GPU's dense peak and an achievable-efficiency
// curve, attention, memory-bound element-wise work against HBM bandwidth,
// collectives with an α–β (latency–bandwidth) model over the links that carry
// them, the pipeline bubble, and the optimizer step. docs/step-time.md gives
// every formula and its source.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/hardware.hpp"
#include "gpuplan/layout.hpp"
#include "gpuplan/model.hpp"

namespace gpuplan {

// The physical constants of the model. One set for every case; each default is
// documented where it is set (src/estimate/step_time/step_time.cpp) and in docs/step-time.md.
struct StepTimeOptions {
  std::optional<double> gemm_ceiling;            // best dense-GEMM fraction of peak; unset: training_gemm_ceiling(gpu)
  double hbm_efficiency = 0.80;       // achieved fraction of HBM bandwidth for streaming kernels
  std::optional<double> intra_busbw_bytes_per_s; // all-reduce bus bandwidth inside a node; unset: measured, else 0.80 × link
  double scaleout_efficiency = 0.90;  // achieved fraction of the NIC rate (NCCLT-290: 46–48 of 50 GB/s)
  double intra_latency_s = 6e-6;      // α per ring step inside a node
  double inter_latency_s = 12e-6;     // α per ring step across nodes
  double kernel_overhead_s = 4e-6;    // launch and tail of one kernel (host dispatch when kernels are tiny)
  double host_dispatch_s = 15e-6;     // host (Python + framework) time to issue one kernel in eager mode
  // Share of an overlappable transfer that really hides behind compute. The
  // collective's kernels hold SMs (one thread block per NCCL channel) and HBM
  // bandwidth while they run, so the compute overlapped with them slows down:
  // by 18.9% on average (40.0% at most) over GPT and Llama training layers on
  // 4× A100, H100, MI250 and MI210, against the same kernels run alone
  // (Characterizing Compute-Communication Overlap in GPU-Accelerated
  // Distributed Deep Learning, arXiv:2507.03114, abstract and §5). Hiding a
  // transfer of t seconds therefore costs 0.189·t: 1 − 0.189 of it hides.
  double overlap_efficiency = 1.0 - 0.189;
  int gpus_per_node = 0;              // 0: the GPU's default node
  std::optional<double> scaleout_bytes_per_s;    // per GPU; unset: the GPU's default NIC
  std::optional<double> grad_reduce_bytes;       // bytes per gradient element reduced; unset: 4 for bf16/fp8, 2 for fp16
  bool explain = true;                // fill StepTime::basis (the planner turns it off in its inner loop)

  bool operator==(const StepTimeOptions&) const = default;
};

// Where the large-GEMM ceiling of a step comes from (training_gemm_ceiling's
// branches, gemm_efficiency.cpp), for the report's assumptions.
enum class GemmCeilingBasis {
  kGiven,               // StepTimeOptions::gemm_ceiling: calibrated or given
  kSustainedMeasured,   // the catalog's sustained fraction at the power limit (MSMF)
  kSustainedFromMamf,   // NVIDIA: the boost-clock MAMF × 0.848, the H200 MSMF/MAMF ratio
  kSustainedAssumed,    // NVIDIA, nothing measured: 0.80 × 0.848
  kMamfMeasured,        // another vendor: its measured MAMF as it is
  kAssumed,             // another vendor, nothing measured: 0.80
};

// The measurement an attention kernel's rate comes from
// (data/kernels/attention.json, chosen as attention_kernels.cpp does).
struct AttentionRateSource {
  AttentionKernel kernel = AttentionKernel::kFlash2;  // the layout's kernel; kMaterialised has no table (the fields below stay empty)
  std::string table_kernel;           // the table's kernel ("flash2", "flash3", "cudnn")
  std::string reference_gpu;          // the GPU the table was measured on
  std::string source;                 // where the measurement is published
  bool borrowed = false;              // no table for this architecture: the Hopper one, as a fraction of peak
};

// How a layout's TP collectives meet its GEMMs (Layout::tp_comm_overlap, tp_grad_comm_async).
enum class TpCommExposure {
  kOverlapped,          // overlapped with the GEMMs
  kInputGradAsync,      // exposed, but the backward's input-gradient reduction (and SP re-gather) runs under the column-parallel GEMMs
  kExposed,             // exposed, not overlapped
};

// What a step's timing assumed, as values (StepTimeOptions::explain); the
// report says them in words (report/step_time_notes.cpp).
struct StepTimeBasis {
  bool explained = false;             // filled (StepTimeOptions::explain); all else is unset when false
  double gemm_ceiling = 0;            // large-GEMM fraction of dense peak used
  Precision gemm_precision = Precision::kBf16;  // the precision the GEMMs ran at (the peak it is a fraction of)
  GemmCeilingBasis gemm_ceiling_basis = GemmCeilingBasis::kGiven;
  AttentionRateSource attention;
  double power_limit_w = 0;           // GpuSpec::power_limit_w
  double tdp_w = 0;                   // GpuSpec::tdp_w
  double clock_factor = 1;            // power_clock_factor: below 1 when the power limit slows the compute clock
  double intra_busbw_bytes_per_s = 0; // all-reduce bus bandwidth inside a node used
  double scaleout_bytes_per_s = 0;    // per GPU across nodes, after StepTimeOptions::scaleout_efficiency
  double hbm_efficiency = 0;          // StepTimeOptions::hbm_efficiency
  double hbm_bytes_per_s = 0;         // the GPU's nominal HBM bandwidth
  TpCommExposure tp_comm = TpCommExposure::kExposed;
  double overlap_efficiency = 0;      // StepTimeOptions::overlap_efficiency (DP/ZeRO traffic)
};

struct StepTime {
  // Totals.
  double step_s = 0;
  double tokens_per_step = 0;
  double tokens_per_s = 0;            // whole job
  double tokens_per_s_per_gpu = 0;
  double mfu = 0;                     // model FLOPs (no recompute, full s×s attention matrix) / (time × GPUs × peak)
  double hfu = 0;                     // hardware FLOPs (with recompute) / (time × GPUs × peak)
  double model_flop_per_step = 0;
  double hardware_flop_per_step = 0;
  double peak_flop_per_s = 0;         // one GPU at the GEMM precision

  // Where the step goes (seconds on the critical path; they add up to step_s).
  double compute_s = 0;               // all micro-batches on the slowest stage, excluding the bubble
  double gemm_s = 0;                  // of which: GEMMs (incl. LM head)
  double attention_s = 0;             //           attention core
  double elementwise_s = 0;           //           norms, activations, residuals, softmax, loss
  double recompute_s = 0;             //           extra forward of activation recomputation (already in the three above)
  double tp_comm_s = 0;               // exposed TP all-reduce / reduce-scatter + all-gather
  double cp_comm_s = 0;               // exposed context-parallel KV exchange
  double ep_comm_s = 0;               // exposed expert all-to-all
  double pp_comm_s = 0;               // exposed pipeline point-to-point
  double bubble_s = 0;                // pipeline fill and drain
  double dp_comm_s = 0;               // exposed DP gradient reduction (and ZeRO-1/2 parameter all-gather)
  double zero3_comm_s = 0;            // exposed ZeRO-3 parameter all-gathers and gradient reduce-scatters
  double optimizer_s = 0;             // optimizer step (memory-bound)

  // Raw communication time, hidden or not, and its share of the step.
  double comm_total_s = 0;
  double comm_exposed_s = 0;
  double comm_share = 0;              // exposed communication / step

  int64_t micro_batches = 0;
  double bubble_fraction = 0;         // bubble / (step − optimizer − DP)
  double stage_fwd_s = 0;             // one micro-batch, slowest stage
  double stage_bwd_s = 0;
  double gemm_efficiency_mean = 0;    // FLOP-weighted achieved fraction of peak over the GEMMs
  int dp_nodes = 1;                   // nodes one DP group spans
  StepTimeBasis basis;                // what the timing assumed (StepTimeOptions::explain)
};

StepTime estimate_step_time(const ModelSpec& model, const Layout& layout, const GpuSpec& gpu,
                            const StepTimeOptions& options = {});

// ---- Building blocks, public for tests and for other estimators. ----

// Achieved fraction of dense peak of one GEMM C[m×n] = A[m×k]·B[k×n]: the
// large-GEMM ceiling times tile/wave quantisation and a short-k pipeline
// penalty. Memory-bound shapes are handled by gemm_time_s's roofline.
// `batch` GEMMs of the same shape issued as one kernel (cuBLAS strided-batched
// or grouped GEMM: attention's per-head products, a rank's local experts) fill
// the SMs together, so the wave is counted over all their tiles.
double gemm_efficiency(const GpuSpec& gpu, Precision p, double m, double n, double k, double ceiling, double batch = 1);
// The roofline of `batch` GEMMs [m×k]·[k×n] in precision `p` (one the GPU has):
// compute at gemm_efficiency against the dense peak, and the bytes moved (A and
// C at `act_bytes` per element, the k×n weights at `weight_bytes`, which
// quantised inference formats make fractional) over `hbm_bytes_per_s`.
struct GemmRoofline {
  double flop = 0;
  double compute_s = 0;
  double memory_s = 0;
  double weight_bytes = 0;
  double time_s() const { return compute_s > memory_s ? compute_s : memory_s; }
};
// FP8 GEMMs reach a lower fraction of their doubled peak than BF16 ones: 70.9%
// vs 80.3% of dense peak on H100 (MAMF, stas00/ml-engineering
// compute/accelerator/README.md): 0.88 of the BF16 ceiling, as gemm_efficiency and
// the inference GEMMs both apply it.
inline constexpr double kFp8OverBf16GemmCeiling = 0.88;
// The roofline of `batch` same-shape GEMMs run at efficiency `eff` of peak:
// compute at that efficiency against A and B read once and C written once.
GemmRoofline roofline_at_efficiency(const GpuSpec& gpu, Precision p, double m, double n, double k, double eff,
                                    double hbm_bytes_per_s, double weight_bytes, double act_bytes, double batch);
GemmRoofline gemm_roofline(const GpuSpec& gpu, Precision p, double m, double n, double k, double ceiling,
                           double hbm_bytes_per_s, double weight_bytes, double act_bytes, double batch = 1);
// The large-GEMM ceiling a training run holds: the GPU's sustained (power-
// limited) fraction of peak where measured; else, for NVIDIA parts, the burst
// MAMF (or 0.80) × the H200 sustained/burst ratio; else the figure as given.
double training_gemm_ceiling(const GpuSpec& gpu, Precision p = Precision::kBf16);
// The sustained/burst clock ratio of a saturated kernel stream at the power
// limit: measured sustained/burst GEMM ratio where the catalog has both, else
// 0.848 for NVIDIA parts (8×H200 MSMF/MAMF), else 1. Kernel rates measured in
// short bursts (attention tables) take it in training.
double sustained_over_burst(const GpuSpec& gpu);
// The burst ceiling: the GPU's measured MAMF, else 0.80 (inference runs in bursts).
double burst_gemm_ceiling(const GpuSpec& gpu, Precision p = Precision::kBf16);
// The sustained SM clock under a power limit below the nominal one, as a
// fraction of the nominal sustained clock (1 at or above tdp_w).
double power_clock_factor(const GpuSpec& gpu);
// Which of training_gemm_ceiling's branches gives that ceiling (never kGiven).
GemmCeilingBasis training_gemm_ceiling_basis(const GpuSpec& gpu);
// Time of one GEMM: max(compute at that efficiency, bytes moved / achieved HBM) + one kernel overhead.
double gemm_time_s(const GpuSpec& gpu, Precision p, double m, double n, double k, const StepTimeOptions& o, double batch = 1);

// A link as collectives see it: achieved bandwidth per GPU (one direction, bus
// bandwidth for rings) and latency per ring step.
struct Link {
  double bytes_per_s = 0;
  double latency_s = 0;
};
// NCCL's ring costs (NCCL performance docs, "bus bandwidth"): `bytes` is the
// full buffer on each rank.
double ring_allreduce_s(double bytes, int n, const Link& link);     // 2(n−1)/n · bytes/bw + 2(n−1)·α
// NCCL's (RCCL's) all-reduce of `bytes` over n ranks at the bus bandwidth the
// GPU's measured curve gives at that size (GpuSpec::allreduce_curve, log-log
// interpolation; below its first size that size's time, beyond its last that
// bandwidth); nullopt where the catalog has no curve.
std::optional<double> measured_allreduce_s(const GpuSpec& gpu, double bytes, int n);
double ring_reduce_scatter_s(double bytes, int n, const Link& link); // (n−1)/n · bytes/bw + (n−1)·α
double ring_allgather_s(double bytes, int n, const Link& link);      // (n−1)/n · bytes/bw + (n−1)·α
double all_to_all_s(double bytes, int n, const Link& link);          // (n−1)/n · bytes/bw + (n−1)·α
// An all-to-all over n ranks, `local` of them on each node: the node's peers
// over `intra`, the rest over `inter`, at the same time (collectives.cpp).
double hierarchical_all_to_all_s(double bytes, int n, int local, const Link& intra, const Link& inter);
// The MoE dispatch as DeepSeek-V3 (§3.2.2) and DeepEP run it across nodes:
// `token_bytes` (one copy of a rank's tokens) crosses the network
// `remote_nodes` times per token on average, and `copies` routed copies are
// forwarded over NVLink inside the nodes; n ranks, `local` per node.
double per_node_all_to_all_s(double token_bytes, double remote_nodes, double copies, int n, int local, const Link& intra, const Link& inter);
// The network rate, per GPU and direction, at which a per-node dispatch's
// remote copies move (the `inter` of per_node_all_to_all_s), from the
// dispatch kernels' own published measurements at the EP size nearest below
// `ep` (16, 32, 64): DeepEP's internode normal kernels, or NVIDIA's HybridEP
// (hybridep), measured with one 400 Gb/s NIC per GPU and scaled to this
// GPU's `nic_bytes_per_s` (collectives.cpp). 0: no measurement applies (one node).
struct DispatchNetworkRates {
  double dispatch_bytes_per_s = 0;
  double combine_bytes_per_s = 0;
};
DispatchNetworkRates per_node_dispatch_rates(bool hybridep, int ep, int nodes, double nic_bytes_per_s);
// Nodes other than its own that a token's k routed experts sit on, on average,
// with experts spread evenly over `nodes` nodes: nodes·(1 − (1 − 1/nodes)^k)
// distinct nodes, at most `node_limit` of them (0: none; DeepSeek-V3's
// node-limited routing, §2.1.2), less the chance 1/nodes that one is its own.
double remote_nodes_per_token(int nodes, double k, int node_limit);
// Hierarchical collective over `local` ranks in each of `nodes` nodes: the
// intra-node phase on `intra`, then the inter-node phase on 1/local of the data
// over each GPU's own NIC (`inter`).
double hierarchical_allreduce_s(double bytes, int local, int nodes, const Link& intra, const Link& inter);
double hierarchical_reduce_scatter_s(double bytes, int local, int nodes, const Link& intra, const Link& inter);
// Latency of one NCCL ring all-gather or reduce-scatter through `ranks` GPUs on `nodes` nodes:
// (ranks − nodes)·α_intra + (nodes − 1)·α_inter (NCCL src/graph/tuning.cc: nsteps − nInterSteps
// steps inside nodes, nInterSteps across them). NCCL runs these two collectives only as rings.
double ring_gather_latency_s(int64_t ranks, int64_t nodes, const Link& intra, const Link& inter);

}  // namespace gpuplan
