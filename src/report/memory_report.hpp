// Report sections for a memory estimate, shared by `gpuplan memory`, `train`,
// `plan` and the web page.
#pragma once
#include <string>
#include <vector>

#include "gpuplan/memory.hpp"
#include "report/report.hpp"

namespace gpuplan {

// Per-GPU breakdown (GiB and share of the peak) and the verdict: peak, capacity,
// safety margin, headroom, fits, largest micro-batch.
Section memory_section(const MemoryBreakdown& br);
// The changes that would make a layout fit, each with the peak it reaches
// (empty records when it already fits).
Section memory_suggestions_section(const MemoryBreakdown& br);
// A suggested change in words ("tensor parallel 8 (dp 4)", zh "张量并行 8（dp 4）")
// and as the `gpuplan memory`/`train` flags that make it ("--tp 8 --dp 4").
std::string memory_change_text(const MemorySuggestion& s, Lang lang);
std::string memory_change_flags(const MemorySuggestion& s);
// A pipeline split in words: "15 | 16 ×6 | 15 (Megatron's even split)", and
// the MTP layers it does not model.
Note stage_split_note(const StageSplit& split);
// What a breakdown assumed (MemoryBasis and its numbers), one sentence each,
// and what to beware of. `lora_line` false leaves out the adapters' line, for
// a report that states the adapters in its own (the fine-tuning estimate).
struct MemoryNotes {
  std::vector<Note> assumptions;
  std::vector<Note> warnings;
};
MemoryNotes memory_notes(const MemoryBreakdown& br, bool lora_line = true);
// Both sections plus the estimate's assumptions and warnings, appended to `report`.
void add_memory_to_report(Report& report, const MemoryBreakdown& br);

}  // namespace gpuplan

namespace gpuplan {

// The whole `gpuplan memory` report for one layout: model, layout, the
// breakdown estimate_memory(model, layout, gpu, options) gave (largest
// micro-batch and suggestions included; its assumptions carry the options),
// assumptions.
// `batch_defaulted`: the global batch is the default of a run without
// --global-batch (ResolvedLayout::global_batch_defaulted), said in the report.
Report memory_report(const ModelSpec& model, const Layout& layout, const GpuSpec& gpu, const MemoryBreakdown& breakdown,
                     bool batch_defaulted = false);

}  // namespace gpuplan
