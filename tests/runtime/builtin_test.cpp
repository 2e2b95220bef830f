// The runtime's built-in routing against the kernel catalogue it reads: every answer is a
// variant the catalogue says can run the shape, and the runtime's query validation agrees with
// the catalogue's problem validation.
#include "runtime/builtin.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "kernels/builtin_variants.h"
#include "kernels/family.h"
#include "kernels/problem.h"

namespace vktune::runtime {
namespace {

ProblemQuery q4(uint32_t m, uint32_t n, uint32_t k, uint32_t gs) {
  return {"q4gsw", "f32", m, n, k, gs};
}

TEST(Builtin, NoBuiltinAnswersAShapeItsKernelCannotRun) {
  // The tiled built-in's kernel reads K in steps of 8: a hand-typed table once said K % 2.
  Selection s;
  select_builtin(q4(4, 64, 4100, 4), s);
  EXPECT_EQ(s.status, Status::no_match);
  EXPECT_NE(std::string(s.error).find("k_multiple"), std::string::npos) << s.error;
  select_builtin(q4(4, 64, 4096, 8), s);
  EXPECT_EQ(s.status, Status::ok) << s.error;
  EXPECT_EQ(s.family, "q4gsw_tiled");
}

TEST(Builtin, DecodeGetsTheGemvAndEveryOtherMTheTile) {
  Selection s;
  select_builtin(q4(1, 4096, 4096, 32), s);
  EXPECT_EQ(s.family, "q4gsw_gemv");
  EXPECT_EQ(s.constraints.m_max, 1u);  // the routing rule's domain, narrower than the family's
  select_builtin(q4(2, 4096, 4096, 32), s);
  EXPECT_EQ(s.family, "q4gsw_tiled");
}

TEST(Builtin, EveryAnswerIsTheCataloguesVariantAndFitsTheShape) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<uint32_t> small(1, 9), width(1, 600);
  const uint32_t group_sizes[] = {2, 4, 6, 8, 16, 32, 128};
  int answered = 0;
  for (int i = 0; i < 4000; ++i) {
    ProblemQuery q;
    if (i % 4 == 0) {
      const uint32_t n = width(rng);
      q = {"rms_norm", "f32", small(rng), n, n, 0};
    } else {
      const uint32_t gs = group_sizes[rng() % std::size(group_sizes)];
      q = q4(small(rng), width(rng), gs * small(rng), gs);
    }
    ASSERT_TRUE(validate(q).empty()) << validate(q);
    Selection s;
    select_builtin(q, s);
    if (!s.ok()) continue;
    ++answered;
    const kernels::Family* family = kernels::find_family(s.family);
    ASSERT_NE(family, nullptr) << s.family;
    const kernels::Knobs knobs = family->knobs_from_json(nlohmann::json::parse(s.knobs_json));
    EXPECT_EQ(family->key(knobs), s.variant_key);
    EXPECT_EQ(kernels::to_json_text(knobs), s.knobs_json);
    EXPECT_EQ(kernels::layout_name(family->layout(knobs)), s.layout);
    EXPECT_EQ(family->workgroup_size(knobs), s.workgroup_size);
    EXPECT_EQ(Specialization(s.specialization.begin(), s.specialization.end()),
              family->shader(knobs).specialization);
    const kernels::Problem p = *kernels::problem_of(q);
    EXPECT_EQ(kernels::check(family->constraints(knobs), p), "")
        << s.variant_key << " answered for " << kernels::describe(p);
  }
  EXPECT_GT(answered, 2000);  // the sample is mostly shapes some built-in serves
}

TEST(Builtin, QueryValidationAgreesWithTheCatalogue) {
  std::mt19937 rng(11);
  std::uniform_int_distribution<uint32_t> dim(0, 40);
  for (int i = 0; i < 20000; ++i) {
    const bool norm = i % 3 == 0;
    ProblemQuery q{norm ? "rms_norm" : "q4gsw", "f32", dim(rng), dim(rng), dim(rng), dim(rng)};
    if (norm && i % 2 == 0) q.k = q.n;
    if (norm && i % 5 == 0) q.group_size = 0;
    kernels::Problem p = *kernels::problem_of(q);
    // The query API has no bias and no eps; rms_norm queries pass K = N, the catalogue K = 0 or N.
    const bool runtime_ok = validate(q).empty();
    const bool catalogue_ok = kernels::validate(p).empty() && p.k != 0 &&
                              (!norm || (q.k == q.n && q.group_size == 0));
    EXPECT_EQ(runtime_ok, catalogue_ok)
        << kernels::describe(p) << " K=" << q.k << " gs=" << q.group_size << ": runtime says '"
        << validate(q) << "', catalogue '" << kernels::validate(p) << "'";
  }
}

}  // namespace
}  // namespace vktune::runtime
