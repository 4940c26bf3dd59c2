// The largest sizes gpuplan accepts, each well above any real model or
// cluster, so that no request's work grows without bound (issue 16 part 6: a
// pasted config.json with 3,131,072 layers held the web server for seconds).
// A size beyond its limit is refused with the limit named; nothing real is.
#pragma once
#include <cstdint>

namespace gpuplan {

// Layers: the deepest production LLMs have 126 (Llama 3.1 405B) and 118
// (PaLM 540B); the deepest published Transformer has 1,000 (DeepNet, Wang et
// al. 2022, "Scaling Transformers to 1,000 Layers").
inline constexpr int64_t kMaxLayers = 1024;
// Width: the widest dense models are MT-NLG 530B (20,480; Smith et al. 2022)
// and PaLM 540B (18,432; Chowdhery et al. 2022): 6x headroom.
inline constexpr int64_t kMaxHidden = 131072;
// FFN width: PaLM's 73,728 (4 x 18,432) is the widest published: 14x headroom.
inline constexpr int64_t kMaxIntermediate = 1048576;
// Attention heads: 128 at most in real models (Llama 3.1 405B, MT-NLG, DeepSeek-V3).
inline constexpr int64_t kMaxHeads = 16384;
// Vocabulary: Gemma 3's 262,208 is the largest in the catalog: 16x headroom.
inline constexpr int64_t kMaxVocab = 4194304;
// Routed experts: DeepSeek-V3 has 256, Kimi K2 384: 170x headroom.
inline constexpr int64_t kMaxExperts = 65536;
// Context: the longest advertised is Llama 4 Scout's 10M tokens: 10x headroom.
inline constexpr int64_t kMaxContext = 100000000;
// GPUs in one job: the largest clusters hold ~200,000 (xAI Colossus, 2025): 50x.
inline constexpr int64_t kMaxGpus = 10000000;

// The planner's search. Pipeline depth searched when --pp is not pinned: the
// deepest published pipelines are 64 stages (Narayanan et al. 2021, Table 1,
// the 1T-parameter run: tp 8 x pp 64); each extra stage costs every layout's
// step-time and memory model a pass, so the search stops at 2x that.
inline constexpr int64_t kMaxSearchedPipelineStages = 128;
// GPU type x count groups one plan request searches (the catalog has ~30 types).
inline constexpr int64_t kMaxPlanGroups = 64;
// Work units one plan() call may spend: a memory check of one candidate is
// one unit, a step-time estimate kStepTimePasses, enumerating it
// kEnumeratePasses, the first two plus one per 16 pipeline stages they walk.
// Measured on the -O2 build (the project's shared 2-core dev machine,
// 2026-12-06, after stage_split's per-thread cache) the search runs 1.6-1.8
// million units per CPU second (MoE searches the slowest), so 1.5 million is
// under a second at worst. The largest catalog search, Qwen3-235B-A22B at
// 24,576 GPUs, spends 1.47 million (0.91 s; docs/fuzzing.md). Before the cache
// a unit cost twice as much: a fuzzed DeepSeek-V2 search on 2,560 H800s took
// 1.04 s of CPU within the old 1.6 million (0.49 s now; not kept as a seed:
// under ASan it runs ~20 s, near libFuzzer's 25 s wall-clock limit).
inline constexpr double kStepTimePasses = 2;
inline constexpr double kEnumeratePasses = 0.25;
inline constexpr int64_t kMaxPlanWorkUnits = 1500000;

}  // namespace gpuplan
