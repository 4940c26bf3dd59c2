// Accelerator and cluster descriptions.
#pragma once
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/market.hpp"

namespace gpuplan {

enum class Precision { kFp32, kTf32, kBf16, kFp16, kFp8, kInt8 };
const char* precision_name(Precision p);

struct GpuSpec {
  std::string id;
  std::string name;
  std::string vendor;
  // The chip family (data field architecture): volta, ampere, ada, hopper,
  // blackwell, cdna2, cdna3, davinci, tpu. Picks the measured attention-kernel
  // table (attention_kernels.cpp); required in every catalog entry.
  std::string architecture;
  // The units a GEMM's output tiles are spread over (data field compute_units):
  // SMs on NVIDIA, compute units on AMD (one GCD of an MI250X), AI cores on
  // Ascend, MXUs on TPU. Sets wave quantization (gemm_efficiency.cpp); required.
  int compute_units = 0;
  double memory_bytes = 0;           // vendor capacity, e.g. 80 GiB
  double hbm_bytes_per_s = 0;
  // Dense peak per precision in FLOP/s (OP/s for int8); absent = the part lacks it.
  std::map<Precision, double> peak_flop_per_s;
  std::string intra_link;            // "NVLink 4", empty for PCIe-only parts
  std::string intra_link_zh;         // the same in Chinese where it has words (intra_node.link_zh); empty: as intra_link
  double intra_bytes_per_s = 0;      // per GPU, one direction
  bool intra_switched = false;       // NVSwitch / all-to-all fabric
  int pcie_gen = 0;                  // 0 = unknown
  double tdp_w = 0;                  // nominal board power limit (datasheet TDP/TGP)
  // The limit the board is held to when set below tdp_w (nvidia-smi -pl; a
  // case's gpu_overrides.tdp_w); 0 = tdp_w. Lowers the sustained SM clock
  // (power_clock_factor in gemm_efficiency.cpp), not the HBM bandwidth.
  double power_limit_w = 0;
  // Other memory configurations sold under the same part name (H100 SXM5 with
  // 96 GB of HBM2e at 2.4 TB/s): a stated capacity picks its bandwidth.
  struct MemoryVariant { double memory_bytes = 0; double hbm_bytes_per_s = 0; std::string memory_type, source; };
  std::vector<MemoryVariant> memory_variants;
  int gpus_per_node = 8;
  int nvlink_domain_gpus = 0;        // > gpus_per_node for NVL72-style racks; 0 = the node
  double scaleout_bytes_per_s = 0;   // per GPU, one direction
  std::string scaleout;              // the network, in words: "NDR InfiniBand 400 Gb/s per GPU (DGX H100: 8 x ConnectX-7)"
  std::string scaleout_zh;           // the same in Chinese (node.scaleout_zh); empty: none written
  double gemm_efficiency = 0;        // best measured dense GEMM fraction of peak, boost-clock burst (MAMF); 0 = unmeasured
  // The best measured dense FP8 GEMM fraction of the FP8 peak where it was
  // measured apart from BF16 (data field gemm_efficiency_fp8); 0 = gemm_efficiency.
  double gemm_efficiency_fp8 = 0;
  double gemm_sustained_efficiency = 0;  // the same held at the power limit (MSMF): what a long training run gets; 0 = unmeasured
  // The fraction of HBM bandwidth at which the vendor BLAS streams the weights
  // of a per-tensor FP8 GEMM with a few token rows (a serving decode step):
  // hipBLASLt on MI300X reaches well under what a streaming kernel does
  // (data field blas_fp8_decode_hbm_efficiency). An engine that sends such
  // GEMMs to the BLAS rather than its own skinny kernel (EngineProfile::
  // rocm_skinny_fp8_tokens) streams at this rate; 0 = unmeasured.
  double blas_fp8_decode_hbm_efficiency = 0;
  double allreduce_busbw_bytes_per_s = 0;  // measured intra-node; 0 = unmeasured
  // nccl-tests / rccl-tests all-reduce bus bandwidth by message size on a full
  // node (data field allreduce_curve), smallest first; empty where not measured.
  struct BusbwPoint { double bytes = 0; double busbw_bytes_per_s = 0; };
  std::vector<BusbwPoint> allreduce_curve;
  std::map<std::string, std::string> sources;
  std::string notes;
  std::string notes_zh;              // the same in Chinese (data field notes_zh); empty: none written yet
  std::vector<std::string> aliases;

  // Peak for a precision; throws InputError (field "--precision") if the part lacks it.
  double peak(Precision p) const;
  bool has(Precision p) const { return peak_flop_per_s.count(p) > 0; }
};

const std::vector<GpuSpec>& gpu_catalog();

// Adds or overrides GPUs from a user's JSON file in the data/gpus.json format,
// for the calling thread only, until the innermost UserGpuScope around the
// call ends; with no scope open, until the thread ends. The built-in catalog
// itself never changes, so one request's file is never seen by another.
void load_user_gpu_file(const std::string& path);

// Within its lifetime, files loaded on this thread by load_user_gpu_file
// apply; when it ends, gpu_catalog() and find_gpu() are what they were when it
// began. One per request: run_cli and run_command (the CLI, its tests and the
// Python module) open one around each command. GpuSpec references taken
// inside it are invalid after it.
class UserGpuScope {
 public:
  UserGpuScope();
  ~UserGpuScope();
  UserGpuScope(const UserGpuScope&) = delete;
  UserGpuScope& operator=(const UserGpuScope&) = delete;

 private:
  size_t outer_depth_;
};

// Accepts an id or an alias (case-insensitive). Unknown names and ambiguous
// aliases throw InputError listing the candidates.
const GpuSpec& find_gpu(const std::string& name);

// Sets a stated memory capacity; where the part has a memory variant of that
// capacity (within 3%), its HBM bandwidth comes with it unless one is given.
void set_gpu_memory(GpuSpec& gpu, double memory_bytes, bool bandwidth_given);

// The machines a run uses: a GPU type, a count, and the node shape.
struct Cluster {
  GpuSpec gpu;
  int gpus_per_node = 8;
  double scaleout_bytes_per_s = 0;   // per GPU
};
Cluster default_cluster(const GpuSpec& gpu);

// Rental prices (data/prices.json).
struct PriceQuote {
  std::string gpu;
  std::string provider;
  std::string provider_zh;           // a descriptive provider ("estimate (...)") in Chinese; empty: a name, the same in both
  Market market = Market::kUs;       // where the listing is offered
  std::string currency;              // "USD" or "CNY"
  double on_demand_per_gpu_hour = 0;
  double spot_per_gpu_hour = 0;      // 0 = not quoted
  std::string date;
  std::string source;
  std::string source_zh;             // the source in Chinese where it is no address (an article's title); empty: its addresses
  std::string confidence;
  // The default of its market (one per GPU and market): the median of that
  // market's current listings of the GPU, set at load (price_catalog.cpp).
  bool is_default = false;
  bool stale = false;                // undated, or dated more than 12 months before today (GPUPLAN_TODAY or the clock)
  // On the default: how many listings its median was taken over, whether they
  // were current ones (false: no current listing, every listing of the market),
  // and their range in this listing's currency.
  int median_of = 0;
  bool median_of_current = false;
  double median_low = 0, median_high = 0;
};
// Today as YYYY-MM-DD: GPUPLAN_TODAY when set (reproducible outputs: the suite
// pins it), else the system clock. A price listing older than 12 months is stale.
std::string price_catalog_today();
struct ExchangeRate {
  double cny_per_usd = 0;
  std::string date;
  std::string source;
  std::string source_zh;
};
const std::vector<PriceQuote>& price_catalog();
// The default listing of a GPU in a market, or nullptr when that market lists
// none: the median (lower middle of an even count), by price in USD, of the
// market's listings dated within 12 months of today, else of all its listings.
const PriceQuote* default_price(const std::string& gpu_id, Market market);
// Without a market: the US default, else the China one (what gpuplan used before markets).
const PriceQuote* default_price(const std::string& gpu_id);
// Every listing of a GPU, in catalog order.
std::vector<const PriceQuote*> prices_for(const std::string& gpu_id);
// The listing of `provider` (case-insensitive substring of its name) for a GPU
// in a market; InputError naming --provider, listing that market's providers, otherwise.
const PriceQuote& find_price(const std::string& gpu_id, Market market, const std::string& provider);
const ExchangeRate& exchange_rate();

// Fraction off on-demand for a reserved (committed) term, per market.
struct ReservedDiscount {
  double fraction = 0;
  std::string date;
  std::string source;
};
const ReservedDiscount& reserved_discount(Market market);

}  // namespace gpuplan
