// What tuning a problem costs, predicted before anything is measured: how `tune --shard` and
// `tune --devices` deal problems out, how a budgeted run shares its --budget among them, and
// (by nominal_dispatch_us) which problem a run with the background pool measures first.
//
// Measuring a variant costs a fixed part (its instance, the gate's dispatch and comparison, the
// submissions of its samples) plus a number of dispatches of the problem: a sample spans at
// least 0.2 ms of GPU time and there are 5 to 40 of them, so a slow problem's variant costs
// far more than a fast one's. Counting variants alone dealt the H200's two GPUs 52% / 48% of
// llama3-8b's variants and 66 s / 131 s of timing: lm_head at M 128 has the fewest variants
// (870) and takes 87 ms a variant, a 4096 x 4096 GEMV 4 ms.
#pragma once

#include <cstddef>

#include "kernels/problem.h"

namespace vktune::tuner {

// One dispatch of `problem` on a nominal GPU (4 TB/s, 200 TFLOP/s), in microseconds: the
// larger of its bytes (kernels::binding_sizes, raw layout) and its FLOPs at those rates. Only
// the ratios between problems matter.
double nominal_dispatch_us(const kernels::Problem& problem);

// The predicted cost of measuring `variants` variants of `problem`, relative: each variant is
// a fixed 20 plus one nominal dispatch in microseconds (a variant's measurement takes about a
// hundred times that). Fitted to the H200's per-problem times of an exhaustive llama3-8b q4gsw
// run at M 1 and 128 (4.2-87 ms a variant): every prediction within 0.67-1.5x.
double tuning_cost(const kernels::Problem& problem, size_t variants);

}  // namespace vktune::tuner
