// The gemm op: C (m x n) = op(A) · op(B) + bias (per column) and the epilogue's activation,
// every matrix row-major and dense. Halide order: A is (k, m), or (m, k) with trans_a; B is
// (n, k), or (k, n) with trans_b; C is (n, m).
#include "generators/buffer_shape.h"
#include "generators/gemm.h"
#include "generators/schedule_registry.h"

namespace cortado {

class GemmGenerator : public Halide::Generator<GemmGenerator> {
  public:
    GeneratorParam<std::string> descriptor{ops::kDescriptorParam, ""};

    Input<Buffer<float, 2>> a{"a"};
    Input<Buffer<float, 2>> b{"b"};
    Input<Buffer<float, 1>> bias{"bias"};
    Output<Buffer<float, 2>> c{"c"};

    void generate() {
        using namespace Halide;
        const auto op = read_descriptor<ops::GemmOp>(descriptor);
        const ops::GemmShape &s = op.shape;
        Var k{"k"}, x{"x"}, y{"y"}, n{"n"};
        // Register tiles past the last row or column read the last one again (never stored).
        Expr row = min(y, s.m - 1), col = min(x, s.n - 1);
        Func a_rows{"a_rows"}, b_cols{"b_cols"};
        a_rows(k, y, n) = s.trans_a ? a(row, k) : a(k, row);
        b_cols(x, k, n) = s.trans_b ? b(k, col) : b(col, k);
        Gemm g(a_rows, b_cols, bias, op.choice.epilogue.bias ? BiasAxis::Columns : BiasAxis::None, ops::gemm_dims(s),
               op.choice.epilogue, op.choice.knobs.get("k_block"), 2);
        c = g.output;
        require_dense_shape(a, s.trans_a ? std::vector<int>{s.m, s.k} : std::vector<int>{s.k, s.m});
        require_dense_shape(b, s.trans_b ? std::vector<int>{s.k, s.n} : std::vector<int>{s.n, s.k});
        require_dense_shape(bias, {s.n});
        require_dense_shape(c, {s.n, s.m});
        apply_schedule(g, op, get_target());
    }
};

}  // namespace cortado

HALIDE_REGISTER_GENERATOR(cortado::GemmGenerator, cortado_gemm)
