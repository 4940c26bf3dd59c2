// gpuplan's library in one include: each question's request, entry function
// and typed result. Link gpuplan::core (find_package(gpuplan); README.md).
//   FLOPs per token ........ flops.hpp        flops_per_token(ModelSpec, FlopOptions)
//   memory of a layout ..... memory.hpp       estimate_memory(ModelSpec, Layout, GpuSpec) → MemoryBreakdown
//   step time of a layout .. step_time.hpp    estimate_step_time(ModelSpec, Layout, GpuSpec) → StepTime
//   fastest layouts ........ plan.hpp         plan(PlanRequest) → PlanResult
//   its launch config ...... launch_config.hpp  launch_config(PlanRequest, PlanResult, ExportChoice) → LaunchConfig
//   a training run ......... train_estimate.hpp  estimate_train(TrainRequest) → TrainEstimate
//   serving ................ inference.hpp    run_infer(InferRequest) → InferRun, plan_serving(...)
//   fine-tuning ............ finetune.hpp     run_finetune(FinetuneRequest) → FinetuneRun
//   models, GPUs, prices ... model.hpp (find_model), hardware.hpp (find_gpu), cost.hpp (resolve_price)
// Bad input throws gpuplan::InputError (error.hpp) with one sentence in English
// and in Chinese, and the field it is about.
#pragma once

#include "gpuplan/cost.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/finetune.hpp"
#include "gpuplan/flops.hpp"
#include "gpuplan/hardware.hpp"
#include "gpuplan/inference.hpp"
#include "gpuplan/launch_config.hpp"
#include "gpuplan/layout.hpp"
#include "gpuplan/memory.hpp"
#include "gpuplan/model.hpp"
#include "gpuplan/plan.hpp"
#include "gpuplan/step_time.hpp"
#include "gpuplan/train_estimate.hpp"
