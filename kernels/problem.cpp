// Problem naming and validation, each op's as its descriptor says.
#include "kernels/problem.h"

#include <algorithm>

#include "kernels/op.h"

namespace vktune::kernels {

Op::Op(std::string_view name) {
  const OpDescriptor* d = find_op(name);
  if (d == nullptr) {
    throw std::invalid_argument("unknown op \"" + std::string(name) + "\"; expected " +
                                op_names_text());
  }
  descriptor_ = d;
}

std::string_view Op::name() const noexcept { return descriptor_->name; }

size_t Op::index() const noexcept {
  const auto ops = all_ops();
  return static_cast<size_t>(std::find(ops.begin(), ops.end(), descriptor_) - ops.begin());
}

const char* op_name(Op op) noexcept { return op->name.data(); }

std::optional<Op> parse_op(std::string_view name) noexcept {
  const OpDescriptor* d = find_op(name);
  return d ? std::optional<Op>(*d) : std::nullopt;
}

const char* dtype_name(DType dtype) noexcept { return dtype == DType::f16 ? "f16" : "f32"; }

std::optional<DType> parse_dtype(std::string_view name) noexcept {
  if (name == "f32") return DType::f32;
  if (name == "f16") return DType::f16;
  return std::nullopt;
}

uint32_t dtype_bytes(DType dtype) noexcept { return dtype == DType::f16 ? 2 : 4; }

std::string describe(const Problem& p) {
  std::string s = op_name(p.op) + p.op->describe_shape(p);
  if (p.dtype != DType::f32) s += std::string(" ") + dtype_name(p.dtype);
  return s;
}

std::string validate(const Problem& p) { return p.op->validate(p); }

void require_valid(const Problem& problem) {
  if (std::string reason = validate(problem); !reason.empty()) throw InvalidProblem(reason);
}

}  // namespace vktune::kernels
