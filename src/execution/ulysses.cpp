// The head rules of DeepSpeed-Ulysses context parallelism: which tp×cp each
// framework's all-to-alls accept, and how many key/value heads they move.
//
// Ulysses scatters the heads of Q, K and V over the cp ranks of a group (each
// TP rank's heads/tp, Jacobs et al. 2023 §3.1), so the heads each TP rank holds
// must split into cp equal parts. What each framework does, at the version its
// profile names:
//  DeepSpeed v0.10.2 deepspeed/sequence/layer.py _SeqAllToAll.forward:
//   torch.tensor_split(input, seq_world_size, scatter_idx) and an output list
//   of torch.empty_like(input_list[0]): an uneven split of the heads does not
//   line up across ranks, so the query and the key/value heads the model passes
//   must each divide by the group. v0.16.4 (#6392, 5fb71c0a, first in v0.15.4) adds
//   uneven_heads_all2all for head counts that do not divide, still asserting
//   'Number of heads ({num_heads}) must be larger than sequence parallel size'
//   (single_all_to_all), so key/value heads below cp are refused; the uneven
//   split, whose largest share sets every rank's pace, is not modelled and
//   refused here too.
//  Colossal-AI v0.4.9 colossalai/shardformer/policies/llama.py module_policy:
//   'all_to_all' sets num_heads //= sp_size and num_key_value_heads //= sp_size,
//   then asserts num_q_heads % tp_size == 0 and 'num_kv_heads >= tp_size and
//   num_kv_heads % tp_size == 0' on those quotients; modeling/llama.py views the
//   all-to-all outputs as (bsz, q_len, num_key_value_heads, head_dim): both head
//   counts must divide by sp·tp.
//  MindSpeed-LLM v2.1.0 on MindSpeed @2c085cc9: mindspeed_llm/training/
//   arguments.py _check_attention_head: 'num_attention_heads must be divisible
//   by ulysses_size * tensor_model_parallel_size' (and num_query_groups by
//   tensor_model_parallel_size); --kv-head-repeat-before-uly-alltoall is
//   action='store_true', default=True, so it is always on, and mindspeed_llm/
//   core/transformer/dot_product_attention.py ulysses_context_parallel_
//   forward_wrapper (patched over MindSpeed's UlyssesContextAttention.forward in
//   tasks/megatron_adaptor.py) repeat_interleave's K and V to the query heads
//   before the all-to-all whenever the model has grouped-query heads (context
//   parallelism forces use_flash_attn = True, _validate_cp_args).
//  Megatron-DeepSpeed @f4157bea megatron/model/transformer.py ParallelAttention:
//   'assert args.num_attention_heads % parallel_state.
//   get_sequence_parallel_world_size() == 0' and, with DeepSpeed sequence
//   parallelism, 'assert self.projection_size == self.kv_projection_size' (no
//   grouped-query attention); DeepSpeed's DistributedAttention then splits the
//   heads/tp of each TP rank over the group, as above.
#include <fmt/format.h>

#include "gpuplan/layout.hpp"

namespace gpuplan {

namespace {

double kv_heads_of(const ModelSpec& m) { return static_cast<double>(m.mla ? m.heads : m.kv_heads); }

}  // namespace

Reason ulysses_refusal(const ModelSpec& m, int tp, int cp, CpExchange e) {
  if (!cp_is_ulysses(e) || cp <= 1 || m.count_only) return {};
  const int64_t group = static_cast<int64_t>(tp) * cp;
  if (m.heads % group != 0) {
    return {fmt::format("Ulysses context parallelism splits the attention heads over tp×cp = {}×{} = {} ranks, which must divide "
                        "the model's {} heads",
                        tp, cp, group, m.heads),
            fmt::format("Ulysses 上下文并行把注意力头分到 TP×CP = {}×{} = {} 张卡上，须能整除模型的 {} 个注意力头", tp, cp, group, m.heads)};
  }
  if (m.mla) return {};  // K and V have the query heads
  if (e == CpExchange::kUlyssesMha && m.kv_heads != m.heads) {
    return {fmt::format("this framework's Ulysses context parallelism needs as many key/value heads as attention heads (the model "
                        "has {} and {}: grouped-query attention is refused)",
                        m.kv_heads, m.heads),
            fmt::format("该框架的 Ulysses 上下文并行要求 KV 头数等于注意力头数（模型为 {} 和 {}：不支持分组查询注意力）", m.kv_heads,
                        m.heads)};
  }
  if (e == CpExchange::kUlyssesRepeatKv && m.kv_heads % tp != 0) {
    return {fmt::format("Ulysses context parallelism here needs --tp {} to divide the model's {} key/value heads", tp, m.kv_heads),
            fmt::format("此处的 Ulysses 上下文并行要求 --tp {} 能整除模型的 {} 个 KV 头", tp, m.kv_heads)};
  }
  if (e == CpExchange::kUlysses && m.kv_heads % group != 0) {
    return {fmt::format("Ulysses context parallelism splits the key/value heads over tp×cp = {}×{} = {} ranks without repeating "
                        "them, which must divide the model's {} key/value heads",
                        tp, cp, group, m.kv_heads),
            fmt::format("Ulysses 上下文并行不复制 KV 头，把它们分到 TP×CP = {}×{} = {} 张卡上，须能整除模型的 {} 个 KV 头", tp, cp,
                        group, m.kv_heads)};
  }
  return {};
}

double ulysses_kv_heads_per_tp_rank(const ModelSpec& m, int tp, CpExchange e) {
  // MindSpeed-LLM repeats K and V to the rank's query heads first
  // (ulysses_context_parallel_forward_wrapper, above).
  if (e == CpExchange::kUlyssesRepeatKv) return static_cast<double>(m.heads) / tp;
  return kv_heads_of(m) / tp;
}

}  // namespace gpuplan
