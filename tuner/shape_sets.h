// The problems a tuning run covers: named presets (model linear shapes) or a JSON file,
// crossed with the M (tokens), group-size and (sdpa) context-length lists.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/problem.h"

namespace vktune::tuner {

struct ShapeOptions {
  std::vector<uint32_t> m;           // empty: the preset's default
  std::vector<uint32_t> group_sizes; // empty: the preset's default
  // sdpa: the context lengths L (cache positions) tuned, the runtime's L buckets; empty:
  // kDefaultContexts. A length below M is skipped (the prompt must fit the cache).
  std::vector<uint32_t> contexts;
  // sdpa is not among the defaults: ask for it (--ops q4gsw,rms_norm,sdpa).
  std::vector<kernels::Op> ops = {kernels::Op("q4gsw"), kernels::Op("rms_norm")};
  // Whether `ops` was chosen (--ops) rather than left at the default. A shapes file's entry of
  // an op `ops` lacks is then left out as asked; at the default it is an error naming the entry
  // and the flag, so an sdpa entry is never dropped unseen.
  bool ops_chosen = false;
  std::vector<kernels::DType> dtypes = {kernels::DType::f32};  // every shape in each of these
};

inline const std::vector<uint32_t> kDefaultContexts = {128, 512, 2048, 8192};

// The problems of `preset_or_file`: a preset name, else a JSON file
//   {"m": [1, 128], "gs": [32], "problems": [
//      {"op": "q4gsw", "n": 4096, "k": 4096, "bias": false, "m": [1], "gs": [32, 128]},
//      {"op": "rms_norm", "n": 4096},
//      {"op": "sdpa", "heads": 32, "kv_heads": 8, "head_dim": 128, "context": [512, 8192]}]}
// where per-problem "m"/"gs"/"context" override the file's, and ShapeOptions override both.
// Deduplicated, in a stable order. Throws std::invalid_argument naming the bad entry
// (unknown preset or op, invalid problem such as K % gs != 0).
std::vector<kernels::Problem> load_shapes(std::string_view preset_or_file,
                                          const ShapeOptions& options);

// The problems of the model in `path` (a config.json or GGUF file, tuner/model_file.h): its
// linears and norm at every M and group size, M {1, 128} and gs {32} unless `options` say.
// Deduplicated, in a stable order. Throws std::invalid_argument naming the file and what is
// wrong or missing, or the problem that is invalid (e.g. K % gs != 0).
std::vector<kernels::Problem> load_model(const std::string& path, const ShapeOptions& options);

// Parses "f32,f16" into dtypes; throws std::invalid_argument naming an unknown one.
std::vector<kernels::DType> parse_dtypes(std::string_view text);

// Parses "1,2,4" into numbers; throws std::invalid_argument on anything else.
std::vector<uint32_t> parse_list(std::string_view text);

}  // namespace vktune::tuner
