// The problem-shape options of `vktune lookup` and `vktune inspect`.
#include "tools/cli.h"

#include "kernels/op.h"

namespace vktune::cli {

void add_shape_options(CLI::App& command, ShapeOptions& options, bool m_required) {
  command.add_option("--op", options.op, kernels::op_names_text())->capture_default_str();
  command.add_option("--dtype", options.dtype,
                     "f32 or f16: the op's float tensors (docs/variants.md \"Problems\")")
      ->capture_default_str();
  auto* m = command.add_option("--m", options.m, "rows of x")->check(integer_check<uint32_t>(1));
  if (m_required) {
    m->required();
  } else {
    m->capture_default_str();
  }
  command.add_option("--n", options.n, "N: output features, or what the op calls N (rms_norm: width; sdpa: L)")
      ->required()
      ->check(integer_check<uint32_t>(1));
  command.add_option("--k", options.k, "K: input features, or what the op calls K (rms_norm: N; sdpa: head dim)")
      ->check(integer_check<uint32_t>());
  command.add_option("--gs", options.gs, "group size (0 for an op without groups)")
      ->check(integer_check<uint32_t>());
  command.add_option("--heads", options.heads, "heads, for an op with heads (sdpa: query heads)")
      ->check(integer_check<uint32_t>());
  command.add_option("--kv-heads", options.kv_heads, "sdpa: KV heads (grouped-query attention)")
      ->check(integer_check<uint32_t>());
}

uint32_t ShapeOptions::k_or_default() const {
  const kernels::OpDescriptor* descriptor = kernels::find_op(op);
  if (descriptor == nullptr) return k;
  kernels::Problem p;
  p.op = *descriptor;
  p.n = n;
  p.k = k;
  return descriptor->with_defaults(p).k;
}

}  // namespace vktune::cli
